import { describe, expect, it, jest } from '@jest/globals';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';
import type { McpConnection, McpSessionRecord } from '../mcp-session.store.js';
import { InMemorySessionStore } from './in-memory-session.store.js';
import { InMemoryMcpBackend } from './in-memory.backend.js';
import type { InMemoryDelivery } from './in-memory-delivery.js';

function backend(replayBufferSize = 16) {
  const options = resolveMcpOptions({ serverInfo: { name: 't', version: '1' }, delivery: { replayBufferSize } });
  const parts = new InMemoryMcpBackend().connect({ options });
  // Fan-out and live streams are one object in memory.
  return {
    ...parts,
    sessions: parts.sessions as InMemorySessionStore,
    delivery: parts.liveStreams as InMemoryDelivery,
  };
}

let next = 0;
const record = (): McpSessionRecord => ({
  id: `session-${++next}`,
  protocolVersion: '2025-11-25',
  initialized: false,
  transport: 'streamable-http',
  createdAt: 0,
  lastActivityAt: Date.now(),
});

const connection = () => {
  const sent: { message: { method?: string; params?: { uri?: string } }; eventId?: string }[] = [];
  const conn = {
    send: jest.fn((json: string, eventId?: string) => (sent.push({ message: JSON.parse(json), eventId }), true)),
    close: jest.fn(),
  };
  return { conn: conn as McpConnection & typeof conn, sent };
};

const methods = (sent: ReturnType<typeof connection>['sent']) =>
  sent.map(({ message }) => (message.params?.uri ? `${message.method} ${message.params.uri}` : message.method));

describe('InMemoryMcpBackend: ending a session is one operation every per-session write checks', () => {
  it('refuses a subscription for a session that ended, and stores none', async () => {
    const { sessions, subscriptions } = backend();
    const session = record();
    await sessions.create(session, 10);
    await sessions.end(session.id, 'deleted');

    expect(await subscriptions.subscribe(session.id, 'db://a')).toBe(false);
    expect(await subscriptions.count()).toBe(0);
    expect([...(await subscriptions.subscribersOf('db://a'))]).toEqual([]);
  });

  it('removes subscriptions, outbox and POST-stream logs in the same step as the record', async () => {
    const { sessions, subscriptions, delivery, postStreams } = backend();
    const session = record();
    await sessions.create(session, 10);
    await subscriptions.subscribe(session.id, 'db://a');
    await delivery.resourceUpdated('db://a');
    const post = postStreams.open(session.id, connection().conn);
    post.send('{"n":1}');

    expect(await sessions.end(session.id, 'deleted')).toBe(true);

    expect(await subscriptions.count()).toBe(0);
    expect(await delivery.resourceUpdated('db://a')).toEqual({ sessions: 0, listeners: 0 });
    expect(await postStreams.resume(session.id, 'p:x:1', connection().conn)).toBe('unknown');
    expect(await delivery.attach(session.id, connection().conn)).toBe(false);
    expect(delivery.holds(session.id)).toBe(false);
  });

  it('does not re-create delivery state for a session that ended between lookup and delivery', async () => {
    const { sessions, delivery } = backend();
    const session = record();
    await sessions.create(session, 10);
    await sessions.end(session.id, 'expired');

    // A broadcast reaches only sessions with delivery state; none is created for the dead one.
    expect(await delivery.attach(session.id, connection().conn)).toBe(false);
    expect(await delivery.listChanged('tools')).toEqual({ sessions: 0, listeners: 0 });
  });

  it('keeps a POST stream of an ended session writing, without event ids and not resumable', async () => {
    const { sessions, postStreams } = backend();
    const session = record();
    await sessions.create(session, 10);
    await sessions.end(session.id, 'deleted');
    const live = connection();

    const post = postStreams.open(session.id, live.conn);
    post.send('{"n":1}');

    expect(live.sent).toEqual([{ message: { n: 1 }, eventId: undefined }]);
    expect(await postStreams.resume(session.id, 'p:any:1', connection().conn)).toBe('unknown');
  });

  it('never lets concurrent creates pass the cap', async () => {
    const { sessions } = backend();
    const created = await Promise.all(Array.from({ length: 20 }, () => sessions.create(record(), 5)));
    expect(created.filter(Boolean)).toHaveLength(5);
    expect(await sessions.count()).toBe(5);
  });

  it('never re-creates an ended session on update', async () => {
    const { sessions } = backend();
    const session = record();
    await sessions.create(session, 10);
    await sessions.end(session.id, 'deleted');
    expect(await sessions.update(session.id, { logLevel: 'debug' })).toBe(false);
    expect(sessions.isAlive(session.id)).toBe(false);
  });
});

describe('InMemoryMcpBackend: list changes across a resume', () => {
  it('replays a list change made while the stream was away to a client resuming with Last-Event-ID', async () => {
    const { sessions, subscriptions, delivery } = backend();
    const session = record();
    await sessions.create(session, 10);
    await subscriptions.subscribe(session.id, 'db://a');
    const first = connection();
    await delivery.attach(session.id, first.conn);
    await delivery.resourceUpdated('db://a');
    await delivery.delivered();
    const lastSeen = first.sent.at(-1)!.eventId!;
    delivery.detach(session.id, first.conn);

    await delivery.listChanged('tools');
    await delivery.resourceUpdated('db://a');
    await delivery.delivered();
    const resumed = connection();
    await delivery.attach(session.id, resumed.conn, lastSeen);

    expect(methods(resumed.sent)).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/updated db://a',
    ]);
  });

  it('coalesces a burst of the same list change while away into one', async () => {
    const { sessions, delivery } = backend();
    const session = record();
    await sessions.create(session, 10);
    const first = connection();
    await delivery.attach(session.id, first.conn);
    await delivery.listChanged('resources');
    await delivery.delivered();
    const lastSeen = first.sent.at(-1)!.eventId!;
    delivery.detach(session.id, first.conn);

    for (let i = 0; i < 5; i++) await delivery.listChanged('prompts');
    await delivery.delivered();
    const resumed = connection();
    await delivery.attach(session.id, resumed.conn, lastSeen);

    expect(methods(resumed.sent)).toEqual(['notifications/prompts/list_changed']);
  });

  it('resyncs (updated for each subscription, then every list change) on an unknown id', async () => {
    const { sessions, subscriptions, delivery } = backend();
    const session = record();
    await sessions.create(session, 10);
    await subscriptions.subscribe(session.id, 'db://a');
    const resumed = connection();

    await delivery.attach(session.id, resumed.conn, 'g:not-ours:4');

    expect(methods(resumed.sent)).toEqual([
      'notifications/resources/updated db://a',
      'notifications/resources/list_changed',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ]);
  });
});

describe('InMemoryMcpBackend: delivery behind the notifying request', () => {
  it('counts the audience at once and writes to the streams on the next turn, in order', async () => {
    const { sessions, subscriptions, delivery } = backend();
    const session = record();
    await sessions.create(session, 10);
    await subscriptions.subscribe(session.id, 'db://a');
    const stream = connection();
    await delivery.attach(session.id, stream.conn);
    const listened: string[] = [];
    delivery.addListener({
      resources: new Set(['db://a']),
      lists: new Set(),
      notify: (method) => listened.push(method),
    });

    expect(await delivery.resourceUpdated('db://a')).toEqual({ sessions: 1, listeners: 1 });
    await delivery.listChanged('tools');
    // Nothing written yet: the request that notified is answered first.
    expect(stream.sent).toEqual([]);
    expect(listened).toEqual([]);

    await delivery.delivered();
    expect(methods(stream.sent)).toEqual([
      'notifications/resources/updated db://a',
      'notifications/tools/list_changed',
    ]);
    expect(listened).toEqual(['notifications/resources/updated']);
  });
});

describe('InMemorySessionStore: the lookup answered at once', () => {
  it('answers access with the record itself, not a promise, and restarts the idle clock', async () => {
    const { sessions } = backend();
    const stored = record();
    await sessions.create(stored, 10);
    const now = stored.lastActivityAt + 1_000;

    const found = sessions.access(stored.id, now, 60_000);
    expect(found).not.toBeInstanceOf(Promise);
    expect(found).toEqual({ ...stored, lastActivityAt: now });
    expect(sessions.peek(stored.id)?.lastActivityAt).toBe(now);
    expect(sessions.access('no-such-session', now, 60_000)).toBeUndefined();
  });

  it('ends a session found idle at once, before access returns', async () => {
    const { sessions } = backend();
    const stored = record();
    await sessions.create(stored, 10);

    expect(sessions.access(stored.id, stored.lastActivityAt + 60_001, 60_000)).toBeUndefined();
    expect(sessions.isAlive(stored.id)).toBe(false);
  });
});
