/**
 * One session model over every transport (docs/decisions/0008-one-session-model-for-every-transport.md):
 * a notification for a URI
 * reaches exactly the subscribed sessions, whichever transport each one uses. Three subscribed
 * sessions (Streamable HTTP with its GET stream, WebSocket, legacy HTTP+SSE) and one
 * unsubscribed session per transport; one `notes.update` → each subscribed session receives
 * exactly one `notifications/resources/updated` for the note, the others none.
 *
 * Absence is proven with a barrier, not a delay: all six sessions also subscribe to
 * `db://notes`, and a `notes.create` after the update notifies it. Each stream is ordered, so
 * once a stream shows that barrier update, any note update meant for it has already arrived.
 */
import { ResourceNotificationService } from '@app/mcp';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { openSession, rawPost, type RawResponse } from '../support/raw-http.js';
import {
  isUpdated,
  openSseClient,
  rawSession,
  toolJson,
  type RawSession,
  type SseClient,
} from '../support/sse-client.js';
import { isUpdatedMessage, openWs, updatedUrisOf, wsUrl, type RawWsClient } from '../support/ws-client.js';

const NOTES = 'db://notes';
const UPDATED = 'notifications/resources/updated';

/** What the test needs from a session, whatever its transport. */
interface Observed {
  name: string;
  /** Sends a request on this session and resolves with the JSON-RPC response. */
  rpc(method: string, params?: Record<string, unknown>): Promise<any>;
  /** Number of messages received on this session's stream so far. */
  mark(): number;
  /** URIs of the `resources/updated` received at positions >= `from`, in order. */
  updatesSince(from: number): string[];
  /** Resolves with the position of the first update for `uri` at >= `from`. */
  waitForUpdate(uri: string, from: number): Promise<number>;
  close(): Promise<void>;
}

let nextId = 1;

async function httpSession(gateway: RunningGateway, name: string): Promise<Observed> {
  const session: RawSession = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
  // The GET stream is attached by the time its headers arrive (the server attaches it synchronously).
  const stream = await session.openStream();
  if (stream.status !== 200) throw new Error(`GET stream answered ${stream.status}`);
  return {
    name,
    rpc: (method, params) => session.rpc(method, params),
    mark: () => stream.events.length,
    updatesSince: (from) =>
      stream.events.filter((e) => e.index >= from && e.json?.method === UPDATED).map((e) => e.json.params.uri),
    waitForUpdate: async (uri, from) => (await stream.waitFor(isUpdated(uri), 5_000, from)).index,
    close: async () => stream.close(),
  };
}

async function wsSession(gateway: RunningGateway, name: string): Promise<Observed> {
  const socket: RawWsClient = await openWs(wsUrl(gateway.origin));
  await socket.initialize();
  return {
    name,
    rpc: (method, params) => socket.request(method, params),
    mark: () => socket.messages.length,
    updatesSince: (from) => updatedUrisOf(socket.messages.slice(from)),
    waitForUpdate: async (uri, from) => {
      const message = await socket.waitFor(isUpdatedMessage(uri), 5_000, from);
      return socket.messages.indexOf(message, from);
    },
    close: async () => {
      await socket.close();
    },
  };
}

async function legacySession(gateway: RunningGateway, name: string): Promise<Observed> {
  const stream: SseClient = await openSseClient(`${gateway.origin}/sse`);
  const first = await stream.waitFor(() => true);
  if (first.event !== 'endpoint') throw new Error(`the first legacy SSE event is not 'endpoint': ${first.data}`);
  const endpoint = new URL(first.data, gateway.origin).href;
  const post = (message: object): Promise<RawResponse> => rawPost(endpoint, message, { accept: 'application/json' });
  const rpc = async (method: string, params?: Record<string, unknown>) => {
    const id = `legacy-${nextId++}`;
    const from = stream.events.length;
    const response = await post(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
    );
    if (response.status !== 202) throw new Error(`POST ${method} answered ${response.status}: ${response.text}`);
    return (await stream.waitFor((e) => e.json?.id === id, 5_000, from)).json;
  };
  const init = await rpc('initialize', {
    protocolVersion: '2024-11-05',
    capabilities: {},
    clientInfo: { name, version: '1.0.0' },
  });
  if (!init.result) throw new Error(`legacy initialize failed: ${JSON.stringify(init)}`);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    name,
    rpc,
    mark: () => stream.events.length,
    updatesSince: (from) =>
      stream.events.filter((e) => e.index >= from && e.json?.method === UPDATED).map((e) => e.json.params.uri),
    waitForUpdate: async (uri, from) => (await stream.waitFor(isUpdated(uri), 5_000, from)).index,
    close: async () => stream.close(),
  };
}

const expectOk = (response: any, what: string): any => {
  if (!response?.result) throw new Error(`${what} failed: ${JSON.stringify(response)}`);
  return response.result;
};

describe('one notification, every transport', () => {
  let gateway: RunningGateway;
  const sessions: Observed[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterEach(async () => {
    await Promise.all(sessions.map((session) => session.close().catch(() => undefined)));
    sessions.length = 0;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const track = async (opening: Promise<Observed>) => {
    const session = await opening;
    sessions.push(session);
    return session;
  };

  it.each(['http', 'websocket', 'legacy-sse'] as const)(
    'a notes.update made over %s reaches exactly the subscribed HTTP, WebSocket and legacy SSE sessions',
    async (writerTransport) => {
      const httpSub = await track(httpSession(gateway, 'http-subscribed'));
      const httpOther = await track(httpSession(gateway, 'http-unsubscribed'));
      const wsSub = await track(wsSession(gateway, 'ws-subscribed'));
      const wsOther = await track(wsSession(gateway, 'ws-unsubscribed'));
      const sseSub = await track(legacySession(gateway, 'sse-subscribed'));
      const sseOther = await track(legacySession(gateway, 'sse-unsubscribed'));
      const subscribed = [httpSub, wsSub, sseSub];
      const unsubscribed = [httpOther, wsOther, sseOther];
      const everyone = [...subscribed, ...unsubscribed];

      // The note exists before anyone listens to db://notes.
      const { id, uri } = toolJson(
        await httpSub.rpc('tools/call', {
          name: 'notes.create',
          arguments: { title: `cross ${writerTransport}`, body: 'v1' },
        }),
      );
      for (const session of subscribed) {
        expect(expectOk(await session.rpc('resources/subscribe', { uri }), `${session.name} subscribe`)).toEqual({
          subscribed: true,
          uri,
        });
      }
      for (const session of everyone) expectOk(await session.rpc('resources/subscribe', { uri: NOTES }), session.name);

      const marks = new Map(everyone.map((session) => [session, session.mark()]));
      const writer = { http: httpOther, websocket: wsOther, 'legacy-sse': sseOther }[writerTransport];
      toolJson(await writer.rpc('tools/call', { name: 'notes.update', arguments: { id, body: 'v2' } }));
      // The barrier: notes.create notifies db://notes, which all six are subscribed to.
      toolJson(await sseOther.rpc('tools/call', { name: 'notes.create', arguments: { title: 'barrier', body: '' } }));

      for (const session of everyone) {
        const from = marks.get(session)!;
        await session.waitForUpdate(NOTES, from);
        const updates = session.updatesSince(from);
        const beforeBarrier = updates.slice(0, updates.indexOf(NOTES));
        const expected = subscribed.includes(session) ? [uri] : [];
        expect({ session: session.name, noteUpdates: beforeBarrier.filter((u) => u === uri) }).toEqual({
          session: session.name,
          noteUpdates: expected,
        });
        // Nothing about the note after the barrier either (no duplicate delivery).
        expect({ session: session.name, total: session.updatesSince(from).filter((u) => u === uri).length }).toEqual({
          session: session.name,
          total: expected.length,
        });
      }

      // The subscription store agrees: exactly the three subscribers hold the note's URI.
      expect(await gateway.app.get(ResourceNotificationService).notifyResourceUpdated(uri)).toEqual({
        sessions: 3,
        listeners: 0,
      });
    },
  );

  it('closing each connection-bound session drops its subscription, the HTTP one keeps its own', async () => {
    const httpSub = await track(httpSession(gateway, 'http-subscribed'));
    const wsSub = await track(wsSession(gateway, 'ws-subscribed'));
    const sseSub = await track(legacySession(gateway, 'sse-subscribed'));
    const { uri } = toolJson(
      await httpSub.rpc('tools/call', { name: 'notes.create', arguments: { title: 'cross close', body: 'v1' } }),
    );
    for (const session of [httpSub, wsSub, sseSub])
      expectOk(await session.rpc('resources/subscribe', { uri }), session.name);
    const notifications = gateway.app.get(ResourceNotificationService);
    expect(await notifications.notifyResourceUpdated(uri)).toEqual({ sessions: 3, listeners: 0 });

    await wsSub.close();
    await sseSub.close();
    const deadline = Date.now() + 5_000;
    let reached = (await notifications.notifyResourceUpdated(uri)).sessions;
    while (reached !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      reached = (await notifications.notifyResourceUpdated(uri)).sessions;
    }
    // Only the HTTP session is left; its stream closing does not end it (DELETE or expiry does).
    expect(reached).toBe(1);
    await httpSub.close();
    expect(await notifications.notifyResourceUpdated(uri)).toEqual({ sessions: 1, listeners: 0 });
  });
});
