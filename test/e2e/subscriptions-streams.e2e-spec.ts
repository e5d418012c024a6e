/**
 * The session's GET stream and subscriptions across reconnects (docs/decisions/0004-sessions.md): a new GET replaces the old one, re-subscribing after a reconnect works,
 * `Last-Event-ID` replays exactly what the session missed, and never another session's events.
 */
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { useGatewaySessions } from '../support/gateway-sessions.js';
import { openSession } from '../support/raw-http.js';
import {
  isListChanged,
  isUpdated,
  rawSession,
  toolJson,
  updatedUris,
  type RawSession,
  type SseClient,
  type SseClientEvent,
} from '../support/sse-client.js';

const INFO = 'system://info';
const METRICS = 'system://metrics';
const CONFIG = 'config://gateway';
const NOTES = 'db://notes';
const EVENT_ID = /^g:[A-Za-z0-9_-]+:\d+$/;

describe('subscriptions across stream reconnects', () => {
  const harness = useGatewaySessions();
  const { newSession, openStream } = harness;

  const subscribeAll = async (session: RawSession, ...uris: string[]): Promise<void> => {
    for (const uri of uris) expect((await session.subscribe(uri)).result).toEqual({ subscribed: true, uri });
  };

  /** Notifies `uri` and returns the events of `stream` before that notification arrived. */
  const eventsBefore = async (stream: SseClient, uri: string): Promise<SseClientEvent[]> => {
    const mark = stream.events.length;
    await harness.notifier.notifyResourceUpdated(uri);
    const arrived = await stream.waitFor(isUpdated(uri), 5_000, mark);
    return stream.events.slice(0, arrived.index);
  };

  it('a new GET replaces the old stream, which the server ends', async () => {
    const session = await newSession();
    await subscribeAll(session, INFO);
    const first = await openStream(session);
    const second = await openStream(session);
    await first.ended;
    await harness.notifier.notifyResourceUpdated(INFO);
    await second.waitFor(isUpdated(INFO));
    expect(updatedUris(first.events)).toEqual([]);
  });

  it('re-subscribing after a reconnect works (close stream, open a new one, subscribe again)', async () => {
    const writer = await newSession();
    const { id, uri } = toolJson(await writer.callTool('notes.create', { title: 'Reconnect', body: 'v1' }));
    const reader = await newSession();
    await subscribeAll(reader, uri, INFO);
    const first = await openStream(reader);
    await toolJson(await writer.callTool('notes.update', { id, body: 'v2' }));
    await first.waitFor(isUpdated(uri));
    first.close();

    const second = await openStream(reader);
    await subscribeAll(reader, uri);
    await toolJson(await writer.callTool('notes.update', { id, body: 'v3' }));
    await second.waitFor(isUpdated(uri));
    // Exactly one notification for that one update: the re-subscription did not double it.
    const before = await eventsBefore(second, INFO);
    expect(updatedUris(before)).toEqual([uri]);
  });

  it('Last-Event-ID replays exactly the missed events, in order, without duplicates', async () => {
    const session = await newSession();
    await subscribeAll(session, INFO, METRICS, CONFIG, NOTES);
    const first = await openStream(session);

    for (const uri of [INFO, METRICS, CONFIG])
      expect(await harness.notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 1, listeners: 0 });
    await first.waitFor(isUpdated(CONFIG));
    expect(updatedUris(first.events)).toEqual([INFO, METRICS, CONFIG]);
    const seen = first.events.map((event) => event.id);
    for (const id of seen) expect(id).toMatch(EVENT_ID);
    expect(new Set(seen).size).toBe(seen.length);
    const lastId = first.events[first.events.length - 1].id!;
    first.close();
    await first.ended;

    // Two events while no stream is open (different URIs: while a session has no stream,
    // repeated updates of one URI may legitimately be folded into one).
    expect(await harness.notifier.notifyResourceUpdated(NOTES)).toEqual({ sessions: 1, listeners: 0 });
    expect(await harness.notifier.notifyResourceUpdated(METRICS)).toEqual({ sessions: 1, listeners: 0 });

    const second = await openStream(session, lastId);
    // A list_changed broadcast from an earlier test's notes.create may land in between (it is
    // coalesced on a timer); replaying it is right, so only the updates are compared.
    const before = (await eventsBefore(second, INFO)).filter((event) => !isListChanged(event));
    expect(before.map((event) => event.json)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: NOTES } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: METRICS } },
    ]);
    const replayed = before.map((event) => event.id!);
    for (const id of replayed) {
      expect(id).toMatch(EVENT_ID);
      expect(seen).not.toContain(id);
    }
    expect(new Set(replayed).size).toBe(2);
    // Ordered like the originals: sequence numbers grow, and continue after the last seen one.
    const seq = (id: string) => Number(id.split(':')[2]);
    expect(seq(replayed[0])).toBeGreaterThan(seq(lastId));
    expect(seq(replayed[1])).toBeGreaterThan(seq(replayed[0]));
  });

  it('a reconnect with the latest id replays nothing', async () => {
    const session = await newSession();
    await subscribeAll(session, INFO, METRICS);
    const first = await openStream(session);
    await harness.notifier.notifyResourceUpdated(METRICS);
    const event = await first.waitFor(isUpdated(METRICS));
    first.close();
    await first.ended;

    const second = await openStream(session, event.id);
    const before = await eventsBefore(second, INFO);
    // A list_changed broadcast may still land from an earlier test's notes.create (coalesced on
    // a timer); if it reached this session's outbox after the last seen event, replaying it is
    // right. No resources/updated event may come back.
    expect(before.filter((e) => !isListChanged(e))).toEqual([]);
  });

  it("another session's event id as Last-Event-ID: no foreign events, only a resync of its own subscriptions", async () => {
    const a = await newSession();
    const b = await newSession();
    await subscribeAll(a, INFO, METRICS, CONFIG);
    await subscribeAll(b, NOTES, INFO);
    const streamA = await openStream(a);
    for (const uri of [METRICS, CONFIG]) await harness.notifier.notifyResourceUpdated(uri);
    await streamA.waitFor(isUpdated(CONFIG));
    const foreignIds = streamA.events.map((event) => event.id!);
    expect(foreignIds).toHaveLength(2);
    streamA.close();
    await streamA.ended;

    // Pick the FIRST of A's ids: a replay from A's buffer would include CONFIG.
    const streamB = await openStream(b, foreignIds[0]);
    const resync = await streamB.waitFor(isListChanged);
    const before = streamB.events.slice(0, resync.index);
    expect(updatedUris(before).sort()).toEqual([INFO, NOTES].sort());
    expect(before).toHaveLength(2);
    for (const event of streamB.events) {
      expect(foreignIds).not.toContain(event.id);
      expect(event.id).toMatch(EVENT_ID);
    }
    // Nothing else of A's shows up afterwards either (barrier on a URI B is subscribed to).
    const all = await eventsBefore(streamB, NOTES);
    expect(updatedUris(all).filter((uri) => uri === METRICS || uri === CONFIG)).toEqual([]);
  });

  it('an unknown Last-Event-ID gives a fresh stream with a resync (updated for every subscription, then list_changed)', async () => {
    const session = await newSession();
    await subscribeAll(session, INFO, CONFIG);
    const stream = await openStream(session, 'g:not-mine:7');
    const resync = await stream.waitFor(isListChanged);
    expect(updatedUris(stream.events.slice(0, resync.index)).sort()).toEqual([CONFIG, INFO].sort());
    expect(resync.index).toBe(2);
    // The stream is live afterwards.
    await harness.notifier.notifyResourceUpdated(CONFIG);
    await stream.waitFor(isUpdated(CONFIG), 5_000, resync.index + 1);
  });
});

describe('shutdown with an open GET stream', () => {
  let gateway: RunningGateway | undefined;
  let stream: SseClient | undefined;

  afterEach(async () => {
    // Unblocks a close() that waits for the client to go away, whatever the test found.
    stream?.close();
    await gateway?.close().catch(() => undefined);
  });

  it('app.close() ends the open stream and completes, without waiting for the client to disconnect', async () => {
    gateway = await startGateway();
    const session = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
    expect((await session.subscribe(INFO)).result).toEqual({ subscribed: true, uri: INFO });
    stream = await session.openStream();
    expect(stream.status).toBe(200);

    const closing = gateway.close().then(() => 'closed' as const);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), 3_000)));
    const outcome = await Promise.race([closing, timeout]);
    clearTimeout(timer);
    expect(outcome).toBe('closed');
    // The server ended the stream before closing; the client sees the end shortly after.
    const ended = await Promise.race([
      stream.ended.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 3_000).unref()),
    ]);
    expect(ended).toBe(true);
    gateway = undefined;
  });
});
