/**
 * Long-lived streams belong to the principal that opened them and live as long as its access
 * token: a listen ends with its completion result when the token expires, a GET
 * stream simply ends (and its client reconnects with a fresh token), and a legacy HTTP+SSE
 * stream is bound once to the principal of its `GET /sse`: a POST by another principal is
 * answered as an unknown stream, the owner's POSTs run with their own tokens (a newer one may
 * carry more scopes) and never rebind the stream, which ends with its opening token.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InMemoryMcpBackend } from '@nest-mcp/server/backend';
import { FaultInjector, FaultyMcpBackend } from '@app/mcp/testing/index.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { OpenTools, PUBLIC_URI, ScopedNotes } from '../fixtures/scoped-notes.fixture.js';
import { openSse, rpc, within } from '../support/http-wire.js';
import { authedSession, bearer } from '../support/oauth/auth-http.js';
import { STUB_ISSUER, StubTokenVerifier } from '../support/oauth/stub-verifier.js';
import { rawPost } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';

const SHORT_TOKEN_MS = 2_000;
const READ = ['notes:read'];
const READ_WRITE = ['notes:read', 'notes:write'];

describe('streams and the tokens that opened them', () => {
  const verifier = new StubTokenVerifier();
  const faults = new FaultInjector();
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [ScopedNotes, OpenTools],
      mcp: {
        sse: {},
        backend: new FaultyMcpBackend(new InMemoryMcpBackend(), faults),
        auth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [STUB_ISSUER], verifier },
      },
    });
  });

  afterAll(() => fixture.close());

  it('a listen whose token expires is answered with its completion result, then ends', async () => {
    const token = verifier.mint({ subject: 'alice', lifetimeMs: SHORT_TOKEN_MS });
    const stream = await openSse(fixture.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
        ...bearer(token),
      },
      body: JSON.stringify(
        rpc('watch', 'subscriptions/listen', {
          notifications: { resourceSubscriptions: [PUBLIC_URI] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        }),
      ),
    });
    await within(stream.ended, 5_000, 'the end of the listen');
    const messages = stream.events.map((event) => JSON.parse(event.data));
    expect(messages.map((message) => message.method ?? 'result')).toEqual([
      'notifications/subscriptions/acknowledged',
      'result',
    ]);
    expect(messages[1]).toMatchObject({
      jsonrpc: '2.0',
      id: 'watch',
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'watch' } },
    });
  });

  it('a GET stream whose token expires ends; the client reconnects with a fresh token', async () => {
    const token = verifier.mint({ subject: 'alice', lifetimeMs: SHORT_TOKEN_MS });
    const session = await authedSession(fixture.endpoint, token);
    const stream = await openSseClient(fixture.endpoint, { headers: { ...session.headers, ...bearer(token) } });
    expect(stream.status).toBe(200);
    await within(stream.ended, 5_000, 'the end of the GET stream');
    expect(stream.events).toEqual([]);

    const fresh = verifier.mint({ subject: 'alice' });
    const again = await openSseClient(fixture.endpoint, { headers: { ...session.headers, ...bearer(fresh) } });
    expect(again.status).toBe(200);
    again.close();
  });

  describe('legacy HTTP+SSE', () => {
    const openLegacy = async (token: string) => {
      const stream = await openSseClient(`${fixture.origin}/sse`, { headers: bearer(token) });
      const endpoint = await stream.waitFor((event) => event.event === 'endpoint');
      const messages = `${fixture.origin}${endpoint.data}`;
      const post = (message: object, with_: string) => rawPost(messages, message, bearer(with_));
      return { stream, post };
    };
    const initialize = rpc('init', 'initialize', {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    const write = (id: string) => rpc(id, 'tools/call', { name: 'notes.write', arguments: { title: id } });

    it("another principal's POST is answered as an unknown stream", async () => {
      const { stream, post } = await openLegacy(verifier.mint({ subject: 'alice' }));
      try {
        const mallory = verifier.mint({ subject: 'mallory' });
        const foreign = await post(initialize, mallory);
        const unknown = await rawPost(`${fixture.origin}/messages?sessionId=unknown`, initialize, bearer(mallory));
        expect(foreign.status).toBe(404);
        expect(foreign.text).toBe(unknown.text);
      } finally {
        stream.close();
      }
    });

    it("runs each POST with its own token: one queued behind another's newer token keeps its own scopes", async () => {
      const reader = verifier.mint({ subject: 'alice', scopes: READ });
      const writer = verifier.mint({ subject: 'alice', scopes: READ_WRITE });
      const { stream, post } = await openLegacy(reader);
      const creating = faults.gate('sessions.create');
      try {
        // initialize is held in the store; the two calls after it wait for it, in order.
        expect((await post(initialize, reader)).status).toBe(202);
        await within(creating.reached, 5_000, 'initialize reached the session store');
        expect((await post(write('as-reader'), reader)).status).toBe(202);
        expect((await post(write('as-writer'), writer)).status).toBe(202);
        creating.release();

        const asReader = await stream.waitFor((event) => event.json?.id === 'as-reader');
        const asWriter = await stream.waitFor((event) => event.json?.id === 'as-writer');
        expect(asReader.json.error).toMatchObject({ code: -32003, data: { requiredScopes: READ_WRITE } });
        expect(JSON.parse(asWriter.json.result.content[0].text)).toEqual({ written: 'as-writer' });
      } finally {
        creating.release();
        stream.close();
      }
    });

    it('ends with the token of its GET, although the POSTs before carried fresh tokens of the same principal', async () => {
      const opening = verifier.mint({ subject: 'alice', lifetimeMs: SHORT_TOKEN_MS, scopes: READ });
      const { stream, post } = await openLegacy(opening);
      const fresh = verifier.mint({ subject: 'alice', scopes: READ });
      expect((await post(initialize, fresh)).status).toBe(202);
      await stream.waitFor((event) => event.json?.id === 'init');
      expect((await post(rpc('read', 'tools/call', { name: 'notes.read' }), fresh)).status).toBe(202);
      expect((await stream.waitFor((event) => event.json?.id === 'read')).json.result).toBeDefined();

      await within(stream.ended, 5_000, 'the end of the legacy stream at its token expiry');
      // The stream was the session: it ended with it.
      expect((await post(rpc('late', 'tools/call', { name: 'notes.read' }), fresh)).status).toBe(404);
    });
  });
});
