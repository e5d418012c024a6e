/**
 * Subscriptions end with their session (DELETE, expiry, the cleanup task; docs/decisions/0004-sessions.md)
 * and need one (-32000 on a stateless gateway: docs/decisions/0002-error-codes-and-http-statuses.md).
 *
 * `ResourceNotificationService.notifyResourceUpdated(uri)` reports how many sessions it reached,
 * which is the subscription store's view of "who is subscribed to uri".
 */
import { ResourceNotificationService } from '@app/mcp';
import type { McpLiveStreams } from '@nest-mcp/server/backend';
import { MCP_LIVE_STREAMS } from '@app/mcp/backend/mcp-backend.tokens.js';
import { McpSessionManager } from '@app/mcp/session/mcp-session.manager.js';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { isUpdated, rawSession, toolJson, type RawSession, type SseClient } from '../support/sse-client.js';

const INFO = 'system://info';
const NOTES = 'db://notes';
const IDLE_TIMEOUT_MS = 300;

/** Polls `condition` (bounded in time); for waiting on the clock, never for asserting. */
async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('subscriptions and the end of a session', () => {
  let gateway: RunningGateway;
  let notifier: ResourceNotificationService;
  const streams = new Set<SseClient>();

  afterEach(async () => {
    for (const stream of streams) stream.close();
    streams.clear();
    await gateway?.close();
  });

  const start = async (env: Record<string, string> = {}): Promise<void> => {
    gateway = await startGateway(env);
    notifier = gateway.app.get(ResourceNotificationService);
  };

  const newSession = async (...uris: string[]): Promise<RawSession> => {
    const session = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
    for (const uri of uris) expect((await session.subscribe(uri)).result).toEqual({ subscribed: true, uri });
    return session;
  };

  const openStream = async (session: RawSession): Promise<SseClient> => {
    const stream = await session.openStream();
    streams.add(stream);
    expect(stream.status).toBe(200);
    return stream;
  };

  it('DELETE ends the session (204), closes its stream and clears its subscriptions, and only its own', async () => {
    await start();
    const writer = await newSession();
    const { uri } = toolJson(await writer.callTool('notes.create', { title: 'Shared', body: 'x' }));
    const doomed = await newSession(uri, NOTES);
    const survivor = await newSession(uri);
    const doomedStream = await openStream(doomed);
    const survivorStream = await openStream(survivor);
    expect(await notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 2, listeners: 0 });
    await doomedStream.waitFor(isUpdated(uri));
    await survivorStream.waitFor(isUpdated(uri));
    const mark = survivorStream.events.length;

    const deleted = await rawRequest(gateway.endpoint, 'DELETE', doomed.headers);
    expect(deleted.status).toBe(204);
    await doomedStream.ended;

    expect(await notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 1, listeners: 0 });
    expect(await notifier.notifyResourceUpdated(NOTES)).toEqual({ sessions: 0, listeners: 0 });
    await survivorStream.waitFor(isUpdated(uri), 5_000, mark);
    expect((await doomed.request('resources/subscribe', { uri })).status).toBe(404);
  });

  it('idle expiry (found on lookup) clears the subscriptions of the expired session only', async () => {
    await start({ MCP_SESSION_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), MCP_SESSION_CLEANUP_INTERVAL_MS: '100000' });
    const idle = await newSession(INFO, NOTES);
    const lastActivity = Date.now();
    // An open stream keeps its session alive.
    const live = await newSession(INFO);
    const liveStream = await openStream(live);
    expect(await notifier.notifyResourceUpdated(INFO)).toEqual({ sessions: 2, listeners: 0 });

    await waitUntil(() => Date.now() - lastActivity > IDLE_TIMEOUT_MS + 50, 5_000, 'idle timeout');
    const lookup = await idle.request('resources/subscribe', { uri: INFO });
    expect(lookup.status).toBe(404);

    expect(await notifier.notifyResourceUpdated(NOTES)).toEqual({ sessions: 0, listeners: 0 });
    const mark = liveStream.events.length;
    expect(await notifier.notifyResourceUpdated(INFO)).toEqual({ sessions: 1, listeners: 0 });
    await liveStream.waitFor(isUpdated(INFO), 5_000, mark);
  });

  it('the cleanup task clears the subscriptions of idle sessions, and keeps those with an open stream', async () => {
    await start({ MCP_SESSION_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), MCP_SESSION_CLEANUP_INTERVAL_MS: '100000' });
    const manager = gateway.app.get(McpSessionManager);
    const idle = await newSession(INFO, NOTES);
    const lastActivity = Date.now();
    const live = await newSession(INFO);
    const liveStream = await openStream(live);
    expect(await notifier.notifyResourceUpdated(NOTES)).toEqual({ sessions: 1, listeners: 0 });

    await waitUntil(() => Date.now() - lastActivity > IDLE_TIMEOUT_MS + 50, 5_000, 'idle timeout');
    // No request of the idle session happens before the sweep: the sweep alone must clear it.
    expect(await manager.sweep()).toBe(1);

    expect(await notifier.notifyResourceUpdated(NOTES)).toEqual({ sessions: 0, listeners: 0 });
    const mark = liveStream.events.length;
    expect(await notifier.notifyResourceUpdated(INFO)).toEqual({ sessions: 1, listeners: 0 });
    await liveStream.waitFor(isUpdated(INFO), 5_000, mark);
    expect(liveStream.isEnded).toBe(false);
    expect((await live.rpc('resources/subscribe', { uri: NOTES })).result).toEqual({ subscribed: true, uri: NOTES });
    expect((await idle.request('resources/subscribe', { uri: INFO })).status).toBe(404);
  });

  it('an open stream keeps the session alive: when it drops, the client can reconnect and keeps its subscriptions', async () => {
    // Spec 6.2 rule 5: after a lost stream the client reopens it. The idle clock starts when the
    // stream ends, not when it was opened (an open stream keeps its session alive: docs/decisions/0004-sessions.md).
    await start({ MCP_SESSION_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), MCP_SESSION_CLEANUP_INTERVAL_MS: '100000' });
    const liveStreams = gateway.app.get<McpLiveStreams>(MCP_LIVE_STREAMS);
    const session = await newSession(INFO);
    const first = await openStream(session);
    const opened = Date.now();
    await waitUntil(() => Date.now() - opened > 2 * IDLE_TIMEOUT_MS, 5_000, 'a stream open for twice the idle timeout');
    expect(first.isEnded).toBe(false);

    first.close();
    await waitUntil(() => !liveStreams.holds(session.sessionId), 5_000, 'the server noticing the drop');
    const second = await openStream(session);
    expect(second.status).toBe(200);
    expect(await notifier.notifyResourceUpdated(INFO)).toEqual({ sessions: 1, listeners: 0 });
    await second.waitFor(isUpdated(INFO));
  });

  it('a stateless gateway answers subscribe and unsubscribe with HTTP 200 and -32000 Session required', async () => {
    await start({ MCP_STATELESS: '1' });
    for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
      const response = await rawPost(gateway.endpoint, { jsonrpc: '2.0', id: 'sub-1', method, params: { uri: NOTES } });
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 'sub-1',
        error: {
          code: -32000,
          message: 'Session required',
          data: expect.objectContaining({ detail: expect.stringMatching(/initialize/i) }),
        },
      });
    }
    expect(await notifier.notifyResourceUpdated(NOTES)).toEqual({ sessions: 0, listeners: 0 });
  });
});
