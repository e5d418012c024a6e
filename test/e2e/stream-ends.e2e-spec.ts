/**
 * Every long-lived stream has an owner, a bound and an end, reached on every close path
 *: the standalone GET stream, a modern listen, a legacy HTTP+SSE stream, a WebSocket
 * that joined a session and the SSE answer of a POST (on its own connection, or resumed on a
 * GET), each closed by the client, by the server,
 * for being too slow, at the expiry of the token that opened it, by the end of its session and
 * by a shutdown. After each close the client saw the end, every place it held is given back
 * (listens, per-caller stream places, the session's held stream), its timers are stopped
 * (keep-alive, token expiry), and the session it kept alive idles towards its expiry again. On
 * the in-memory backend and on Redis, which holds streams its own way.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { McpResourceService, ResourceNotificationService, type McpBackend } from '@app/mcp';
import { InMemoryMcpBackend, type McpLiveStreams } from '@nest-mcp/server/backend';
import { FaultInjector, FaultyMcpBackend } from '@app/mcp/testing/index.js';
import { MCP_LIVE_STREAMS } from '@app/mcp/backend/mcp-backend.tokens.js';
import { McpListens } from '@app/mcp/protocol/listen/listens.registry.js';
import { McpSessionManager } from '@app/mcp/session/mcp-session.manager.js';
import { McpEventStreams } from '@app/mcp/transports/http/event-streams.js';
import { McpLegacySseHandler } from '@app/mcp/transports/sse/mcp-legacy-sse.handler.js';
import { RedisMcpBackend } from '@nest-mcp/redis';
import { createFixtureApp } from '../fixtures/fixture-app.js';
import { GateTools } from '../fixtures/gate.tools.js';
import { Gates } from '../fixtures/gates.js';
import { mcpPostHeaders, openSse, rpc, within } from '../support/http-wire.js';
import { authedSession, bearer, call } from '../support/oauth/auth-http.js';
import { STUB_ISSUER, StubTokenVerifier } from '../support/oauth/stub-verifier.js';
import { rawPost, rawRequest } from '../support/raw-http.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { openSseClient } from '../support/sse-client.js';
import { openStalled } from '../support/stalled-stream.js';
import { TimerLedger } from '../support/timer-ledger.js';
import { until } from '../support/until.js';
import { openWs, wsUrl } from '../support/ws-client.js';

/** A keep-alive interval no other timer uses: a live interval of this length is a stream's. */
const KEEP_ALIVE_MS = 4_321;
/** Longer than any timer but a token-expiry one of an hour-long token. */
const TOKEN_TIMER_MS = 600_000;
const IDLE_MS = 800;
const SHORT_TOKEN_MS = 2_000;
/** Each notification is about 7 KB, so a stalled client's buffers fill quickly. */
const BIG_URI = `mem://big/${'x'.repeat(7_000)}`;
/** Notifications sent at most while waiting for the server to cut a stalled client off. */
const MAX_FLOOD = 3_000;
const RESOURCE = 'http://127.0.0.1/mcp';

const CAUSES = {
  client: 'the client closes it',
  replaced: 'a newer GET of its session replaces it',
  answered: 'its answer is sent',
  slow: 'its client is too slow and is cut off',
  expired: 'the token that opened it expires',
  leftWhileAttaching: 'the client leaves while it attaches',
  deleted: 'its session is deleted',
  shutdown: 'the instance shuts down',
} as const;
type Cause = keyof typeof CAUSES;

const verifier = new StubTokenVerifier();
const timers = new TimerLedger();
let redis: TestRedis | undefined;
let prefixes = 0;

/** One application under test, and the owners whose counters the checks read. */
class Harness {
  readonly ends = new Map<string, string>();
  readonly faults = new FaultInjector();
  app!: INestApplication;
  origin = '';
  port = 0;

  static async start(backend: 'memory' | 'redis'): Promise<Harness> {
    const harness = new Harness();
    const inner: McpBackend =
      backend === 'memory'
        ? new InMemoryMcpBackend()
        : new RedisMcpBackend({ url: redis!.url, keyPrefix: `${redis!.prefix()}${++prefixes}:`, heartbeatMs: 200 });
    harness.app = await createFixtureApp({
      providers: [Gates, GateTools],
      mcp: {
        sse: {},
        ws: {},
        backend: new FaultyMcpBackend(inner, harness.faults),
        auth: { resource: RESOURCE, authorizationServers: [STUB_ISSUER], verifier },
        transport: { keepAliveMs: KEEP_ALIVE_MS },
        sessions: { idleTimeoutMs: IDLE_MS, cleanupIntervalMs: 100 },
        delivery: { maxStreamBufferBytes: 32 * 1024, replayBufferSize: 20 },
      },
      configure: (created) => created.useWebSocketAdapter(new WsAdapter(created)),
    });
    await harness.app.listen(0, '127.0.0.1');
    harness.port = (harness.app.getHttpServer().address() as AddressInfo).port;
    harness.origin = `http://127.0.0.1:${harness.port}`;
    harness.app.get(McpResourceService).register(BIG_URI, () => 'big', { name: 'big' });
    harness.app.get(McpSessionManager).onSessionEnd((id, reason) => void harness.ends.set(id, reason));
    return harness;
  }

  get endpoint(): string {
    return `${this.origin}/mcp`;
  }
  get liveStreams(): McpLiveStreams {
    return this.app.get<McpLiveStreams>(MCP_LIVE_STREAMS);
  }
  get listens(): McpListens {
    return this.app.get(McpListens);
  }
  get eventStreams(): McpEventStreams {
    return this.app.get(McpEventStreams);
  }
  get legacy(): McpLegacySseHandler {
    return this.app.get(McpLegacySseHandler);
  }

  /** Nothing is held any more: no listen, no stream place, no stream of `session`. */
  released(session: string | undefined): boolean {
    return (
      this.listens.size === 0 &&
      this.eventStreams.size === 0 &&
      this.eventStreams.answerCount === 0 &&
      this.legacy.size === 0 &&
      (session === undefined || !this.liveStreams.holds(session))
    );
  }

  close(): Promise<void> {
    return this.app.close();
  }
}

/** A stream as a test holds it. */
interface Opened {
  /** The session it belongs to, if any. */
  readonly session?: string;
  /** The stream is the session: it ends with it. */
  readonly isSession?: boolean;
  /** Resolves once the client saw the stream end. */
  readonly ended: Promise<unknown>;
  /** True while the server holds the stream (what a flood waits on). */
  held(): boolean;
  close(): void;
  /** A stalled client reads again. */
  drain?(): void;
  /** A newer GET of the same session; resolves with its close. */
  replace?(): Promise<() => void>;
  /** Lets its request answer. */
  answer?(): void;
}

interface Path {
  readonly name: string;
  readonly causes: readonly Cause[];
  open(h: Harness, token: string, stalled: boolean): Promise<Opened>;
}

const headersOf = (token: string, session: { headers: Record<string, string> }) => ({
  ...session.headers,
  ...bearer(token),
});

const GET_STREAM: Path = {
  name: 'the standalone GET stream',
  causes: ['client', 'replaced', 'slow', 'expired', 'leftWhileAttaching', 'deleted', 'shutdown'],
  async open(h, token, stalled) {
    const session = await authedSession(h.endpoint, token);
    await call(h.endpoint, token, session, 'resources/subscribe', { uri: BIG_URI });
    const headers = headersOf(token, session);
    const held = () => h.liveStreams.holds(session.sessionId);
    const replace = async () => {
      const newer = await openSseClient(h.endpoint, { headers });
      expect(newer.status).toBe(200);
      return () => newer.close();
    };
    if (stalled) {
      const stream = await openStalled(h.port, {
        method: 'GET',
        path: '/mcp',
        headers: { ...headers, accept: 'text/event-stream' },
      });
      return { session: session.sessionId, ended: stream.ended, held, close: stream.close, drain: stream.drain };
    }
    const stream = await openSseClient(h.endpoint, { headers });
    expect(stream.status).toBe(200);
    return { session: session.sessionId, ended: stream.ended, held, close: () => stream.close(), replace };
  },
};

const LISTEN: Path = {
  name: 'a subscriptions/listen stream',
  causes: ['client', 'slow', 'expired', 'shutdown'],
  async open(h, token, stalled) {
    const headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      ...bearer(token),
    };
    const body = JSON.stringify(
      rpc('listen', 'subscriptions/listen', {
        notifications: { resourceSubscriptions: [BIG_URI] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      }),
    );
    const held = () => h.listens.size > 0;
    if (stalled) {
      const stream = await openStalled(h.port, {
        method: 'POST',
        path: '/mcp',
        headers,
        body,
        pauseWhen: (received) => received.includes('acknowledged'),
      });
      return { ended: stream.ended, held, close: stream.close, drain: stream.drain };
    }
    const stream = await openSse(h.endpoint, { method: 'POST', headers, body });
    await stream.waitForEvent((event) => event.data.includes('acknowledged'));
    return { ended: stream.ended, held, close: () => stream.close() };
  },
};

const LEGACY_SSE: Path = {
  name: 'a legacy HTTP+SSE stream',
  causes: ['client', 'slow', 'expired', 'deleted', 'shutdown'],
  async open(h, token, stalled) {
    const endpointOf = (text: string) => /data: (\/messages\?sessionId=\S+)/.exec(text)?.[1];
    let messages: string;
    let opened: Omit<Opened, 'session' | 'held'>;
    if (stalled) {
      const stream = await openStalled(h.port, {
        method: 'GET',
        path: '/sse',
        headers: { accept: 'text/event-stream', ...bearer(token) },
        pauseWhen: (received) => endpointOf(received) !== undefined,
      });
      messages = `${h.origin}${endpointOf(stream.received())}`;
      opened = { ended: stream.ended, close: stream.close, drain: stream.drain };
    } else {
      const stream = await openSseClient(`${h.origin}/sse`, { headers: bearer(token) });
      messages = `${h.origin}${(await stream.waitFor((event) => event.event === 'endpoint')).data}`;
      opened = { ended: stream.ended, close: () => stream.close() };
    }
    const before = new Set(h.liveStreams.heldSessions());
    const post = async (message: object) => expect((await rawPost(messages, message, bearer(token))).status).toBe(202);
    await post(
      rpc(1, 'initialize', {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
    );
    let session: string | undefined;
    await until(
      () => (session = [...h.liveStreams.heldSessions()].find((id) => !before.has(id))) !== undefined,
      'attached',
    );
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await post(rpc(2, 'resources/subscribe', { uri: BIG_URI }));
    return { ...opened, session, isSession: true, held: () => h.liveStreams.holds(session!) };
  },
};

const WEBSOCKET: Path = {
  name: 'a WebSocket that joined a session',
  causes: ['client', 'slow', 'expired', 'deleted', 'shutdown'],
  async open(h, token, stalled) {
    const session = await authedSession(h.endpoint, token);
    await call(h.endpoint, token, session, 'resources/subscribe', { uri: BIG_URI });
    const client = await openWs(wsUrl(h.origin), {
      headers: { ...bearer(token), 'mcp-session-id': session.sessionId },
    });
    await until(() => h.liveStreams.holds(session.sessionId), 'the socket joined its session');
    if (stalled) client.socket.pause();
    return {
      session: session.sessionId,
      ended: client.closed,
      held: () => h.liveStreams.holds(session.sessionId),
      close: () => void client.close(),
      drain: () => client.socket.resume(),
    };
  },
};

let gates = 0;
const POST_ANSWER: Path = {
  name: 'the SSE answer of a POST',
  causes: ['client', 'answered', 'expired', 'deleted', 'shutdown'],
  async open(h, token) {
    const session = await authedSession(h.endpoint, token);
    const gate = `post-${++gates}`;
    const stream = await openSse(h.endpoint, {
      method: 'POST',
      headers: mcpPostHeaders({ ...headersOf(token, session), accept: 'text/event-stream' }),
      body: JSON.stringify(
        rpc(7, 'tools/call', {
          name: 'progress_then_gate',
          arguments: { count: 1, gate },
          _meta: { progressToken: 'p' },
        }),
      ),
    });
    await stream.waitForEvent((event) => event.data.includes('notifications/progress'));
    return {
      session: session.sessionId,
      ended: stream.ended,
      held: () => true,
      close: () => stream.close(),
      answer: () => h.app.get(Gates).gate(gate).open(),
    };
  },
};

/** A POST answer whose client lost it and resumed it on a GET (`Last-Event-ID: p:...`). */
const RESUMED_POST_ANSWER: Path = {
  name: 'a POST answer resumed on a GET',
  causes: ['client', 'answered', 'expired', 'deleted', 'shutdown'],
  async open(h, token) {
    const session = await authedSession(h.endpoint, token);
    const gate = `resumed-${++gates}`;
    const post = await openSse(h.endpoint, {
      method: 'POST',
      headers: mcpPostHeaders({ ...headersOf(token, session), accept: 'text/event-stream' }),
      body: JSON.stringify(
        rpc(8, 'tools/call', {
          name: 'progress_then_gate',
          arguments: { count: 2, gate },
          _meta: { progressToken: 'p' },
        }),
      ),
    });
    const first = await post.waitForEvent((event) => event.data.includes('"progress":1'));
    await post.waitForEvent((event) => event.data.includes('"progress":2'));
    const resumed = await openSseClient(h.endpoint, { headers: headersOf(token, session), lastEventId: first.id });
    expect(resumed.status).toBe(200);
    await resumed.waitFor((event) => event.data.includes('"progress":2'));
    // The answer moved: the POST's own connection was let go.
    await within(post.ended, 5_000, 'the superseded POST answer ended');
    return {
      session: session.sessionId,
      ended: resumed.ended,
      held: () => true,
      close: () => resumed.close(),
      answer: () => h.app.get(Gates).gate(gate).open(),
    };
  },
};

const PATHS = [GET_STREAM, LISTEN, LEGACY_SSE, WEBSOCKET, POST_ANSWER, RESUMED_POST_ANSWER];
const rows = (filter: (cause: Cause) => boolean) =>
  PATHS.flatMap((path) => path.causes.filter(filter).map((cause) => [path.name, CAUSES[cause], path, cause] as const));

/** Writes to every stalled client until the server let `opened` go; the count sent. */
async function flood(h: Harness, opened: Opened): Promise<number> {
  const notifier = h.app.get(ResourceNotificationService);
  let sent = 0;
  while (opened.held() && sent < MAX_FLOOD) {
    await notifier.notifyResourceUpdated(BIG_URI);
    sent++;
    if (sent % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return sent;
}

/** A GET whose client goes away while the backend attaches the stream (held at a gate). */
async function leaveWhileAttaching(h: Harness, token: string): Promise<Opened> {
  const session = await authedSession(h.endpoint, token);
  const attach = h.faults.gate('liveStreams.attach');
  const socket = connect(h.port, '127.0.0.1');
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const headers = Object.entries({ ...headersOf(token, session), accept: 'text/event-stream' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\n${headers}\r\n`);
  await within(attach.reached, 5_000, 'the GET reached the attach');
  expect(h.eventStreams.size).toBe(1);
  socket.destroy();
  await closed;
  // The server saw it leave (the stream gave its place back) before the attach goes on.
  await until(() => h.eventStreams.size === 0, 'the server saw the client leave');
  attach.release();
  return {
    session: session.sessionId,
    ended: closed,
    held: () => h.liveStreams.holds(session.sessionId),
    close: () => {},
  };
}

/** Closes `opened` the way `cause` says. */
async function end(h: Harness, opened: Opened, cause: Cause, token: string): Promise<void> {
  switch (cause) {
    case 'client':
      opened.close();
      return;
    case 'replaced': {
      const closeNewer = await opened.replace!();
      await within(opened.ended, 5_000, 'the replaced stream ended');
      closeNewer();
      return;
    }
    case 'answered':
      opened.answer!();
      return;
    case 'slow':
      expect(await flood(h, opened)).toBeLessThan(MAX_FLOOD);
      opened.drain!();
      return;
    case 'expired':
    case 'leftWhileAttaching':
      return;
    case 'deleted': {
      const response = await rawRequest(h.endpoint, 'DELETE', { 'mcp-session-id': opened.session!, ...bearer(token) });
      expect(response.status).toBe(204);
      return;
    }
    case 'shutdown':
      await within(h.close(), 10_000, 'app.close()');
  }
}

/** The stream ended, gave everything back and stopped its timers. */
async function expectEnded(h: Harness, opened: Opened): Promise<void> {
  await within(opened.ended, 5_000, 'the client saw the stream end');
  await until(() => h.released(opened.session), 'every place the stream held given back');
  await until(
    () =>
      timers.count('interval', (ms) => ms === KEEP_ALIVE_MS) === 0 &&
      timers.count('timeout', (ms) => ms > TOKEN_TIMER_MS) === 0,
    'the keep-alive and token-expiry timers stopped',
  );
}

beforeAll(async () => {
  timers.install();
  redis = await startRedis();
});

afterAll(async () => {
  timers.uninstall();
  await redis?.stop();
});

describe.each(['memory', 'redis'] as const)('on the %s backend', (backend) => {
  describe('an instance that lives on', () => {
    let h: Harness;

    beforeAll(async () => {
      h = await Harness.start(backend);
    });

    afterEach(() => h.app.get(Gates).openAll());

    afterAll(() => h?.close());

    it.each(rows((cause) => cause !== 'shutdown'))('%s ends when %s', async (_path, _cause, path, cause) => {
      const token = verifier.mint({ subject: 'alice', lifetimeMs: cause === 'expired' ? SHORT_TOKEN_MS : undefined });
      const opened =
        cause === 'leftWhileAttaching'
          ? await leaveWhileAttaching(h, token)
          : await path.open(h, token, cause === 'slow');
      // (One that left while attaching may or may not be let go yet: the attach is finishing.)
      if (cause !== 'leftWhileAttaching') expect(opened.held()).toBe(true);

      await end(h, opened, cause, token);
      await expectEnded(h, opened);
      // A request whose answer stream ended with its token runs on (a client with a fresh token
      // can resume its answer): once it is answered, nothing holds its session.
      if (cause === 'expired') opened.answer?.();

      if (opened.session === undefined) return;
      if (cause === 'deleted') {
        expect(h.ends.get(opened.session)).toBe('deleted');
      } else if (opened.isSession) {
        await until(() => h.ends.get(opened.session!) === 'closed', 'the session ended with its stream');
      } else {
        // Nothing holds the session any more: it expires once idle.
        await until(() => h.ends.get(opened.session!) === 'expired', 'the session idled out', IDLE_MS + 5_000);
      }
    });
  });

  describe('a JSON answer still pending when its token expires', () => {
    let h: Harness;

    beforeAll(async () => {
      h = await Harness.start(backend);
    });

    afterEach(() => h.app.get(Gates).openAll());

    afterAll(() => h?.close());

    const MODERN_META = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };

    it.each(['2025-11-25', '2026-07-28'] as const)(
      'is answered 401 invalid_token with its id, and a %s request is not left running past the answer',
      async (era) => {
        const token = verifier.mint({ subject: 'alice', lifetimeMs: SHORT_TOKEN_MS });
        const gate = `json-${era}-${++gates}`;
        const params = { name: 'wait_at_gate', arguments: { gate } };
        const headers =
          era === '2025-11-25'
            ? mcpPostHeaders({
                ...headersOf(token, await authedSession(h.endpoint, token)),
                accept: 'application/json',
              })
            : {
                'content-type': 'application/json',
                accept: 'application/json',
                'mcp-protocol-version': era,
                'mcp-method': 'tools/call',
                'mcp-name': 'wait_at_gate',
                ...bearer(token),
              };
        const body = rpc(9, 'tools/call', era === '2025-11-25' ? params : { ...params, _meta: MODERN_META });
        const response = await within(rawPost(h.endpoint, body, headers), SHORT_TOKEN_MS + 5_000, 'the answer');

        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
        expect(response.json).toMatchObject({ id: 9, error: { code: expect.any(Number) } });
        const [signal] = h.app.get(GateTools).signalsAt(gate);
        if (era === '2026-07-28') {
          // Its answer was the 401: the modern request is cancelled, as a closed stream cancels it.
          await until(() => signal?.aborted === true, 'the modern request cancelled');
        } else {
          // A 2025 request runs on, as one whose answer stream ended does; its late answer is
          // dropped without a second write on the ended response.
          expect(signal?.aborted).toBe(false);
          h.app.get(Gates).gate(gate).open();
        }
        await until(() => h.eventStreams.answerCount === 0, 'no answer stream held');
      },
    );
  });

  describe('an instance that shuts down', () => {
    let h: Harness | undefined;

    beforeEach(async () => {
      h = await Harness.start(backend);
    });

    afterEach(async () => {
      h?.app.get(Gates).openAll();
      if (h?.app.getHttpServer().listening) await h.close();
    });

    it.each(rows((cause) => cause === 'shutdown'))('%s ends when %s', async (_path, _cause, path, cause) => {
      const token = verifier.mint({ subject: 'alice' });
      const opened = await path.open(h!, token, false);
      await end(h!, opened, cause, token);
      await expectEnded(h!, opened);
    });
  });
});
