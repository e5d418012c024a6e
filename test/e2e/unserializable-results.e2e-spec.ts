/**
 * "serialization outside the error boundary": a result JSON cannot hold (a BigInt, a
 * cycle) is serialized once, where a failure becomes `-32603` for the request's own id, on
 * every transport; the server keeps serving. A handler whose own related message cannot be
 * serialized (`ctx.log` with a BigInt) fails as a tool error, never as a broken stream.
 */
import { WsAdapter } from '@nestjs/platform-ws';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { UnserializableFixtures } from '../fixtures/unserializable.fixtures.js';
import { openSession, parseSse, rawPost } from '../support/raw-http.js';
import { stdioPipes, type StdioPipes } from '../support/stdio-pipes.js';
import { openDriver, TRANSPORT_KINDS, type McpDriver } from '../support/transport-drivers.js';

/** The answer to a request whose result could not be serialized. */
const internalError = (id: number) => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32603,
    message: 'Internal error',
    data: { correlationId: expect.any(String), detail: expect.stringMatching(/^An internal error occurred/) },
  },
});

const UNSERIALIZABLE: Array<[string, string, Record<string, unknown>]> = [
  ['a tool result holding a BigInt', 'tools/call', { name: 'bigint_result', arguments: {} }],
  ['a tool result holding a cycle', 'tools/call', { name: 'cyclic_result', arguments: {} }],
  ['a resource holding a BigInt', 'resources/read', { uri: 'mem://bigint' }],
  ['a prompt holding a cycle', 'prompts/get', { name: 'cyclic' }],
];

let nextId = 100;

describe('results JSON cannot hold', () => {
  let fixture: FixtureApp;
  let pipes: StdioPipes;

  beforeAll(async () => {
    pipes = stdioPipes();
    fixture = await startFixtureApp({
      providers: [UnserializableFixtures],
      mcp: { ws: {}, sse: {}, stdio: true },
      overrides: [pipes.override],
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
  });

  afterAll(async () => {
    pipes.end();
    await fixture.close();
  });

  describe.each(TRANSPORT_KINDS)('over %s', (kind) => {
    let driver: McpDriver;

    beforeAll(async () => {
      driver = await openDriver(kind, fixture, pipes);
    });
    afterAll(() => driver.close());

    it.each(UNSERIALIZABLE)('%s: -32603 for its own id, then the next request is served', async (_, method, params) => {
      const id = nextId++;
      expect(await driver.request(id, method, params)).toEqual(internalError(id));

      const next = nextId++;
      const followUp = await driver.request(next, 'tools/call', { name: 'fine', arguments: {} });
      expect(followUp).toEqual({
        jsonrpc: '2.0',
        id: next,
        result: { content: [{ type: 'text', text: 'still serving' }] },
      });
    });

    it('ctx.log with a BigInt is the tool’s own failure: an isError result for its id', async () => {
      const id = nextId++;
      const answer = await driver.request(id, 'tools/call', { name: 'log_bigint', arguments: {} });
      expect(answer).toEqual({
        jsonrpc: '2.0',
        id,
        result: { isError: true, content: [{ type: 'text', text: expect.stringMatching(/correlation id/) }] },
      });
    });
  });

  it('an SSE answer already streaming progress ends with -32603 for its id, as a complete 200 stream', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const id = nextId++;
    const response = await rawPost(
      fixture.endpoint,
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'bigint_after_progress', arguments: {}, _meta: { progressToken: 'p' } },
      },
      headers,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = parseSse(response.text).map((event) => JSON.parse(event.data));
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 1, total: 1, message: 'almost' },
      },
      internalError(id),
    ]);
  });
});
