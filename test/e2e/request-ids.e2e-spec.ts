/**
 * "smaller" defects about request ids: a duplicate of an id still in flight in the same
 * session is refused (the first request stays cancellable), and an id outside the safe integer
 * range is refused with a detail saying so (it used to say "null is not allowed").
 */
import { once } from 'node:events';
import { WsAdapter } from '@nestjs/platform-ws';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { GateTools } from '../fixtures/gate.tools.js';
import { Gates } from '../fixtures/gates.js';
import { within } from '../support/http-wire.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { openWs, wsUrl } from '../support/ws-client.js';

const ID = 5;
const waitAtGate = (gate: string) => ({
  jsonrpc: '2.0',
  id: ID,
  method: 'tools/call',
  params: { name: 'wait_at_gate', arguments: { gate } },
});
const cancel = {
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId: ID, reason: 'changed my mind' },
};
const DUPLICATE = {
  jsonrpc: '2.0',
  id: ID,
  error: {
    code: -32600,
    message: 'Invalid Request',
    data: { detail: `Request id ${ID} is already in flight here; use a fresh id` },
  },
};

describe('request ids', () => {
  let fixture: FixtureApp;
  let gates: Gates;
  let tools: GateTools;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [Gates, GateTools],
      mcp: { ws: {} },
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
    gates = fixture.app.get(Gates);
    tools = fixture.app.get(GateTools);
  });
  afterAll(async () => {
    gates.openAll();
    await fixture.close();
  });

  /** The first call's signal fires with the client's reason. */
  async function expectCancelled(gate: string): Promise<void> {
    const [signal] = tools.signalsAt(gate);
    if (!signal.aborted) await within(once(signal, 'abort'), 2_000, `the abort of the first call at ${gate}`);
    expect(signal.reason).toEqual(
      expect.objectContaining({ message: 'The client cancelled the request: changed my mind' }),
    );
    expect(gates.gate(gate).arrived).toBe(1);
  }

  it('Streamable HTTP: a duplicate in-flight id → 400 -32600 for that id; the first stays cancellable', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const first = rawPost(fixture.endpoint, waitAtGate('dup-http'), headers);
    await gates.gate('dup-http').whenArrived(1);

    const second = await within(
      rawPost(fixture.endpoint, waitAtGate('dup-http'), headers),
      2_000,
      'the answer to the duplicate',
    );
    expect({ status: second.status, body: second.json }).toEqual({ status: 400, body: DUPLICATE });

    expect((await rawPost(fixture.endpoint, cancel, headers)).status).toBe(202);
    await expectCancelled('dup-http');
    // A cancelled request gets no response (spec): its POST ends with 202 and no body.
    const answered = await within(first, 2_000, 'the end of the cancelled POST');
    expect({ status: answered.status, text: answered.text }).toEqual({ status: 202, text: '' });
  });

  it('WebSocket: a duplicate in-flight id → -32600 for that id; the first stays cancellable', async () => {
    const ws = await openWs(wsUrl(fixture.origin));
    await ws.initialize();
    await ws.send(waitAtGate('dup-ws'));
    await gates.gate('dup-ws').whenArrived(1);

    const from = ws.messages.length;
    await ws.send(waitAtGate('dup-ws'));
    expect(await ws.waitFor((m) => m.id === ID, 2_000, from)).toEqual(DUPLICATE);

    await ws.send(cancel);
    await expectCancelled('dup-ws');
    // Nothing answers the cancelled call: the next message with its id is a fresh call's.
    gates.gate('dup-ws').open();
    const fresh = ws.messages.length;
    await ws.send({ ...waitAtGate('dup-ws'), id: ID + 1 });
    await ws.waitFor((m) => m.id === ID + 1, 2_000, fresh);
    expect(ws.messages.slice(from).filter((m) => m.id === ID)).toEqual([DUPLICATE]);
    await ws.close();
  });

  it('an id outside the safe integer range → 400 -32600, id null, with a detail saying so', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const response = await rawPost(
      fixture.endpoint,
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
      headers,
    );
    expect({ status: response.status, body: response.json }).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request',
          data: {
            detail:
              'The "id" member is outside the safe integer range (±(2^53-1)) and cannot be echoed exactly; send it as a string',
          },
        },
      },
    });
  });
});
