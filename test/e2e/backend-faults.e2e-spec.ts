/**
 * The backend seam under faults ("found when the code was read with a Redis store in
 * mind"): the application's backend is the one used; a backend that is down answers 503 with
 * Retry-After on every transport and never crashes the process; check-then-act races across
 * awaits are provoked with gates (a call held until the racing operation finished), never with
 * sleeps.
 */
import { jest } from '@jest/globals';
import { Injectable, Logger } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import {
  McpBackendUnavailableError,
  McpCtx,
  McpResource,
  McpResourceService,
  McpTool,
  ResourceNotificationService,
  type McpRequestContext,
} from '@app/mcp';
import { InMemoryMcpBackend } from '@nest-mcp/server/backend';
import { McpSessionManager } from '@app/mcp/session/mcp-session.manager.js';
import { FaultyMcpBackend } from '@app/mcp/testing/faulty-backend.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSession, rawPost, rawRequest, initializeRequest } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';
import { openWs, wsUrl } from '../support/ws-client.js';

@Injectable()
class FaultFixture {
  @McpResource({ uri: 'fault://doc', name: 'doc' })
  doc() {
    return 'doc';
  }

  @McpTool({ name: 'say', description: 'Logs at info, then answers' })
  async say(@McpCtx() ctx: McpRequestContext) {
    await ctx.log('info', 'hello');
    return 'said';
  }

  @McpTool({ name: 'confirm', description: 'Asks the client to confirm (an MRTR round in the modern era)' })
  async confirm(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.elicit(
      { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } },
      { key: 'ok' },
    );
    return answer.action;
  }

  /** An application store of its own that cannot reach its database. */
  @McpTool({ name: 'store.write', description: 'Writes to a store that is down' })
  storeWrite(): never {
    throw new McpBackendUnavailableError(`Redis is unavailable: connect ECONNREFUSED ${STORE_HOST} (${STORE_URL})`);
  }
}

/** A modern tools/call of `confirm`, with `extra` params beside the name. */
const modernConfirm = (endpoint: string, id: number, extra: Record<string, unknown> = {}) =>
  rawPost(
    endpoint,
    {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'confirm',
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'confirm' },
  );

const STORE_HOST = '10.7.0.3:6379';
const STORE_URL = 'redis://:hunter2@10.7.0.3:6379';

/** The answer of every backend failure, whoever's backend it is. */
const SERVICE_UNAVAILABLE = {
  code: -32000,
  message: 'Service unavailable',
  data: { detail: 'The session backend is unavailable; retry shortly' },
};

/** One macrotask turn, so that rejections of fire-and-forget work surface. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the backend seam under faults', () => {
  let fixture: FixtureApp | undefined;
  let backend: FaultyMcpBackend;

  const start = async (options: Record<string, unknown> = {}) => {
    backend = new FaultyMcpBackend(new InMemoryMcpBackend());
    fixture = await startFixtureApp({
      providers: [FaultFixture],
      mcp: { backend, ws: {}, sse: {}, wireProfile: 'strict', ...options },
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
    return fixture;
  };

  afterEach(async () => {
    backend?.faults.heal();
    // The server still serves once the backend is back (Jest hides unhandled rejections from a
    // test; the child processes of the Redis fault tests prove that none escapes).
    if (fixture) {
      const { endpoint } = fixture;
      expect((await rawPost(endpoint, { jsonrpc: '2.0', id: 99, method: 'ping' })).status).toBeLessThan(500);
    }
    await fixture?.close();
    fixture = undefined;
  });

  it('McpModule.forRoot({ backend }) is what sessions, subscriptions and notifications use', async () => {
    const { endpoint, app } = await start();
    const { headers } = await openSession(endpoint);
    await rawPost(
      endpoint,
      { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'fault://doc' } },
      headers,
    );
    await app.get(ResourceNotificationService).notifyResourceUpdated('fault://doc');

    expect(backend.faults.calls).toEqual(
      expect.arrayContaining([
        'sessions.create',
        'sessions.access',
        'subscriptions.subscribe',
        'fanout.resourceUpdated',
      ]),
    );
  });

  describe('a backend that is down answers 503 with Retry-After, never 404 or 500', () => {
    it('over Streamable HTTP: initialize, POST, GET and DELETE', async () => {
      const { endpoint } = await start();
      const { headers } = await openSession(endpoint);
      backend.faults.fail('sessions.access', 'sessions.create');

      const post = await rawPost(endpoint, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, headers);
      const get = await rawRequest(endpoint, 'GET', { ...headers, accept: 'text/event-stream' });
      const del = await rawRequest(endpoint, 'DELETE', headers);
      const init = await rawPost(endpoint, initializeRequest(8));

      for (const response of [post, get, del, init]) {
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(response.json.error).toEqual(expect.objectContaining({ code: -32000, message: 'Service unavailable' }));
      }
      expect(post.json.id).toBe(7);
      expect(init.json.id).toBe(8);

      backend.faults.heal();
      const again = await rawPost(endpoint, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, headers);
      expect(again.status).toBe(200);
    });

    it('an MRTR retry whose state cannot be checked for reuse: 503, and the state is still good once healed', async () => {
      const { endpoint } = await start();
      const first = await modernConfirm(endpoint, 1);
      const { requestState } = first.json.result;
      const retry = { requestState, inputResponses: { ok: { action: 'accept', content: {} } } };
      backend.faults.fail('requestStateNonces.consume');

      const refused = await modernConfirm(endpoint, 2, retry);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.json).toMatchObject({ id: 2, error: { code: -32000, message: 'Service unavailable' } });

      backend.faults.heal();
      const accepted = await modernConfirm(endpoint, 3, retry);
      expect(accepted.json.result).toMatchObject({ resultType: 'complete', content: [{ text: 'accept' }] });
      expect(backend.faults.calls.filter((call) => call === 'requestStateNonces.consume')).toHaveLength(2);
    });

    it('over WebSocket and legacy SSE: the request is answered in-band with -32000 Service unavailable', async () => {
      const { origin, endpoint } = await start();
      const ws = await openWs(wsUrl(origin));
      await ws.initialize();
      backend.faults.fail('sessions.access');
      const answer = await ws.request('tools/list');
      expect(answer.error).toEqual(expect.objectContaining({ code: -32000, message: 'Service unavailable' }));
      await ws.close();

      backend.faults.heal();
      const sse = await openSseClient(`${origin}/sse`);
      const endpointEvent = await sse.waitFor((event) => event.event === 'endpoint');
      const messages = new URL(endpointEvent.data, origin).toString();
      await rawPost(messages, initializeRequest(1));
      await sse.waitFor((event) => event.json?.id === 1);
      backend.faults.fail('sessions.access');
      await rawPost(messages, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const refused = await sse.waitFor((event) => event.json?.id === 2);
      expect(refused.json.error).toEqual(expect.objectContaining({ code: -32000, message: 'Service unavailable' }));
      sse.close();
      expect(endpoint).toBeDefined();
    });
  });

  describe('a tool whose own backend is down answers like any backend failure, never with an isError result', () => {
    const call = { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'store.write', arguments: {} } };

    it('over Streamable HTTP, in both eras: 503 with Retry-After, no backend detail in the body or the log', async () => {
      const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const { endpoint } = await start();
      const { headers } = await openSession(endpoint);
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const modernHeaders = {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'store.write',
      };

      const legacy = await rawPost(endpoint, call, headers);
      const modern = await rawPost(endpoint, { ...call, params: { ...call.params, _meta: meta } }, modernHeaders);

      for (const response of [legacy, modern]) {
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(response.json).toEqual({ jsonrpc: '2.0', id: 11, error: SERVICE_UNAVAILABLE });
      }
      const logged = [...warnings.mock.calls, ...errors.mock.calls].map((args) => String(args[0])).join('\n');
      expect(logged).toContain(STORE_HOST);
      expect(logged).not.toContain('hunter2');
    });

    it('over WebSocket: in-band -32000 Service unavailable', async () => {
      const { origin } = await start();
      const ws = await openWs(wsUrl(origin));
      await ws.initialize();
      const answer = await ws.request('tools/call', { name: 'store.write', arguments: {} });
      expect(answer.error).toEqual(SERVICE_UNAVAILABLE);
      await ws.close();
    });
  });

  describe('fire-and-forget work survives a failing backend', () => {
    it('the periodic sweep', async () => {
      await start({ sessions: { cleanupIntervalMs: 5 } });
      const sweeps = backend.faults.gate('sessions.expireIdle');
      backend.faults.fail('sessions.expireIdle');
      await sweeps.reached;
      sweeps.release();
      await turn();
    });

    it('the end of a WebSocket session when its socket closes', async () => {
      const { origin } = await start();
      const ws = await openWs(wsUrl(origin));
      await ws.initialize();
      const ending = backend.faults.gate('sessions.end');
      backend.faults.fail('sessions.end');
      await ws.close();
      await ending.reached;
      ending.release();
      await turn();
    });

    it('a WebSocket joining a session while the backend is down', async () => {
      const { origin, endpoint } = await start();
      const { sessionId } = await openSession(endpoint);
      backend.faults.fail('sessions.access');
      const ws = await openWs(wsUrl(origin), { headers: { 'mcp-session-id': sessionId } });
      const answer = await ws.request('ping');
      expect(answer.error ?? answer.result).toBeDefined();
      await ws.close();
      await turn();
    });

    it('the list-changed coalescer', async () => {
      const { app } = await start({ delivery: { listChangedDebounceMs: 1 } });
      const sent = backend.faults.gate('fanout.listChanged');
      backend.faults.fail('fanout.listChanged');
      app.get(McpResourceService).register('fault://runtime', () => 'x');
      await sent.reached;
      sent.release();
      await turn();
    });
  });

  describe('check-then-act across awaits', () => {
    it('a subscribe that completes after DELETE is refused and stores nothing', async () => {
      const { endpoint, app } = await start();
      const { headers } = await openSession(endpoint);
      const held = backend.faults.gate('subscriptions.subscribe');
      const subscribing = rawPost(
        endpoint,
        { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'fault://doc' } },
        headers,
      );
      await held.reached;
      expect((await rawRequest(endpoint, 'DELETE', headers)).status).toBe(204);
      held.release();

      const answer = await subscribing;
      expect(answer.json.result).toBeUndefined();
      expect(answer.json.error).toEqual(expect.objectContaining({ code: -32001 }));
      expect(await app.get(ResourceNotificationService).notifyResourceUpdated('fault://doc')).toEqual({
        sessions: 0,
        listeners: 0,
      });
    });

    it('a GET racing a DELETE does not keep a live stream for the deleted session', async () => {
      const { endpoint, app } = await start();
      const { sessionId, headers } = await openSession(endpoint);
      const held = backend.faults.gate('liveStreams.attach');
      const opening = openSseClient(endpoint, { headers });
      await held.reached;
      expect((await rawRequest(endpoint, 'DELETE', headers)).status).toBe(204);
      held.release();

      const stream = await opening;
      expect(stream.status).toBe(404);
      await stream.ended;
      expect(app.get(McpSessionManager)['liveStreams'].holds(sessionId)).toBe(false);
    });

    it('maxSessions holds under concurrent initializes on a slow backend', async () => {
      const { endpoint, app } = await start({ sessions: { max: 3 } });
      backend.faults.latencyMs = 5;
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => rawPost(endpoint, initializeRequest(i))));
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
      expect(answers.filter((answer) => answer.status === 503)).toHaveLength(9);
      expect(await app.get(McpSessionManager).count()).toBe(3);
    });

    it('a socket closing during initialize leaves no orphan session', async () => {
      const { origin, app } = await start();
      const manager = app.get(McpSessionManager);
      const ended = new Promise<string>((resolve) => manager.onSessionEnd((id) => resolve(id)));
      const held = backend.faults.gate('liveStreams.attach');
      const ws = await openWs(wsUrl(origin));
      await ws.send(initializeRequest(1));
      await held.reached;
      await ws.close();
      held.release();

      await ended;
      expect(await manager.count()).toBe(0);
    });

    it('setLevel racing DELETE does not re-create the session', async () => {
      const { endpoint, app } = await start();
      const { headers } = await openSession(endpoint);
      const held = backend.faults.gate('sessions.update');
      const setting = rawPost(
        endpoint,
        { jsonrpc: '2.0', id: 4, method: 'logging/setLevel', params: { level: 'error' } },
        headers,
      );
      await held.reached;
      await rawRequest(endpoint, 'DELETE', headers);
      held.release();
      expect((await setting).json.error).toEqual(expect.objectContaining({ code: -32001 }));
      expect(await app.get(McpSessionManager).count()).toBe(0);
    });
  });

  it('a log level set over HTTP applies at once on a WebSocket joined to the same session', async () => {
    const { origin, endpoint } = await start();
    const { sessionId, headers } = await openSession(endpoint);
    const ws = await openWs(wsUrl(origin), { headers: { 'mcp-session-id': sessionId } });
    const before = await ws.request('tools/call', { name: 'say', arguments: {} });
    expect(before.result).toBeDefined();
    expect(ws.messages.some((message) => message.method === 'notifications/message')).toBe(true);

    await rawPost(endpoint, { jsonrpc: '2.0', id: 5, method: 'logging/setLevel', params: { level: 'error' } }, headers);
    const from = ws.messages.length;
    await ws.request('tools/call', { name: 'say', arguments: {} });
    expect(ws.messages.slice(from).some((message) => message.method === 'notifications/message')).toBe(false);
    await ws.close();
  });
});
