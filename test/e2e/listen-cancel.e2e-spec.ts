/**
 * `notifications/cancelled` for a listen over Streamable HTTP: MCP 2026-07-28 clients
 * (`mcp-remote`, the SDK v2 client) cancel a `subscriptions/listen` by posting the notification
 * on another request, beside closing its stream. It ends the listen of the same caller, without an
 * answer, and frees its place; another caller naming the same request id touches nothing. The
 * caller is the principal with `auth`, else the client's address, so one caller can be several
 * clients: a cancel that could mean another client's listen ends none.
 */
import 'reflect-metadata';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { McpResourceService } from '@app/mcp';
import { McpListens } from '@app/mcp/protocol/listen/listens.registry.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSse, rpc, within, type OpenSse } from '../support/http-wire.js';
import { bearer } from '../support/oauth/auth-http.js';
import { STUB_ISSUER, StubTokenVerifier } from '../support/oauth/stub-verifier.js';
import { until } from '../support/until.js';

const URI = 'mem://watched';
const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

const listenBody = (id: string) =>
  JSON.stringify(rpc(id, 'subscriptions/listen', { notifications: { resourceSubscriptions: [URI] }, _meta: META }));
const cancelBody = (requestId: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, reason: 'done listening', _meta: META },
  });
const MODERN_HEADERS = { 'content-type': 'application/json', 'mcp-protocol-version': MODERN };

/** POSTs a notification from `localAddress` and resolves with the status once it was answered. */
function postFrom(url: string, body: string, headers: Record<string, string>, localAddress = '127.0.0.1') {
  return new Promise<number>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The stream ended without carrying a response to the listen. */
async function expectCancelled(stream: OpenSse): Promise<void> {
  await within(stream.ended, 5_000, 'the cancelled listen stream ends');
  const messages = stream.events.map((event) => JSON.parse(event.data) as Record<string, unknown>);
  expect(messages.map((message) => message.method)).toEqual(['notifications/subscriptions/acknowledged']);
  expect(messages.some((message) => 'result' in message || 'error' in message)).toBe(false);
}

describe.each([
  ['with auth: the principal is the caller', true],
  ['without auth: the client address is the caller', false],
])('notifications/cancelled for a listen over HTTP, %s', (_title, withAuth) => {
  const verifier = new StubTokenVerifier();
  let fixture: FixtureApp;
  let listens: McpListens;
  const open: OpenSse[] = [];

  beforeAll(async () => {
    fixture = await startFixtureApp({
      mcp: withAuth
        ? { auth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [STUB_ISSUER], verifier } }
        : {},
    });
    fixture.app.get(McpResourceService).register(URI, () => 'watched', { name: 'watched' });
    listens = fixture.app.get(McpListens);
  });

  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  afterAll(() => fixture.close());

  /** Opens a listen of `who` with request id `id`, once it was acknowledged. */
  const listen = async (who: { headers: Record<string, string>; address: string }, id: string) => {
    const stream = await openSse(fixture.endpoint, {
      method: 'POST',
      headers: { ...MODERN_HEADERS, accept: 'text/event-stream', 'mcp-method': 'subscriptions/listen', ...who.headers },
      body: listenBody(id),
      localAddress: who.address,
    });
    open.push(stream);
    await stream.waitForEvent((event) => event.data.includes('acknowledged'));
    return stream;
  };

  /** Alice and Bob: two tokens with auth, two client addresses without. */
  const callers = () =>
    withAuth
      ? {
          alice: { headers: bearer(verifier.mint({ subject: 'alice' })), address: '127.0.0.1' },
          bob: { headers: bearer(verifier.mint({ subject: 'bob' })), address: '127.0.0.1' },
        }
      : { alice: { headers: {}, address: '127.0.0.2' }, bob: { headers: {}, address: '127.0.0.3' } };

  it("ends the listen of the caller that names it, unanswered, and leaves another caller's listen of the same id alone", async () => {
    const { alice, bob } = callers();
    const alices = await listen(alice, 'L1');
    const bobs = await listen(bob, 'L1');
    expect(listens.size).toBe(2);

    // Bob names Alice's id: his own listen of that id ends, Alice's does not. The notification is
    // handled before it is answered, so after the 202 the outcome is there to see.
    const cancel = {
      ...MODERN_HEADERS,
      accept: 'application/json, text/event-stream',
      'mcp-method': 'notifications/cancelled',
    };
    expect(await postFrom(fixture.endpoint, cancelBody('L1'), { ...cancel, ...bob.headers }, bob.address)).toBe(202);
    await expectCancelled(bobs);
    await until(() => listens.size === 1, "bob's listen let go");
    expect(alices.events.length).toBe(1);

    expect(await postFrom(fixture.endpoint, cancelBody('L1'), { ...cancel, ...alice.headers }, alice.address)).toBe(
      202,
    );
    await expectCancelled(alices);
    await until(() => listens.size === 0, "alice's listen let go");
  });

  it('ignores an id that names no listen of the caller', async () => {
    const { alice } = callers();
    const cancel = {
      ...MODERN_HEADERS,
      accept: 'application/json, text/event-stream',
      'mcp-method': 'notifications/cancelled',
    };
    expect(
      await postFrom(fixture.endpoint, cancelBody('nothing'), { ...cancel, ...alice.headers }, alice.address),
    ).toBe(202);
    expect(listens.size).toBe(0);
  });

  it("ends no listen when the caller holds two of that id, nor the other client's after the first closed its own", async () => {
    // Two clients that are one caller (one address without auth, one principal with it), and
    // both give their first listen the same id, as the official clients do.
    const { alice } = callers();
    const cancel = {
      ...MODERN_HEADERS,
      accept: 'application/json, text/event-stream',
      'mcp-method': 'notifications/cancelled',
      ...alice.headers,
    };
    const first = await listen(alice, 'listen:0');
    const second = await listen(alice, 'listen:0');
    expect(listens.size).toBe(2);

    // Both open: the cancel cannot tell which it means, so it ends neither.
    expect(await postFrom(fixture.endpoint, cancelBody('listen:0'), cancel, alice.address)).toBe(202);
    expect(listens.size).toBe(2);

    // The first client closes its stream and then posts its cancel (as the SDK client's
    // subscription.close() does): the second client's listen, the only one left, lives on.
    first.close();
    await until(() => listens.size === 1, 'the closed listen let go');
    expect(await postFrom(fixture.endpoint, cancelBody('listen:0'), cancel, alice.address)).toBe(202);
    expect(listens.size).toBe(1);
    expect(second.events.length).toBe(1);
  });
});
