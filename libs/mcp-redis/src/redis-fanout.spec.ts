/**
 * The Redis fan-out beyond the backend contract: constant work in Redis per notification, the
 * instance's URI index kept in order with subscriptions made elsewhere, the replay of the two
 * cursors a GET event id carries, the resync past the log, and the catch-up after lost pub/sub
 * messages. Runs on a `redis-server` of its own (it reads INFO commandstats).
 */
import { describe, expect, it } from '@jest/globals';
import { FakeConnection, sessionRecord, updated } from '@nest-mcp/server/testing';
import type { McpBackendParts } from '@nest-mcp/server/backend';
import { redisDeployments } from '../../../test/support/redis-deployments.js';

const env = redisDeployments({ heartbeatMs: 200 });

async function session(parts: McpBackendParts): Promise<string> {
  const record = sessionRecord();
  expect(await parts.sessions.create(record, 10_000)).toBe(true);
  return record.id;
}

/** A session subscribed to db://a whose stream saw one update of it and closed: the session and that update. */
async function awayAfterOneUpdate(parts: McpBackendParts) {
  const sid = await session(parts);
  await parts.subscriptions.subscribe(sid, 'db://a');
  const first = new FakeConnection();
  await parts.liveStreams.attach(sid, first);
  await parts.fanout.resourceUpdated('db://a');
  const seen = await first.waitFor(updated('db://a'));
  parts.liveStreams.detach(sid, first);
  return { sid, seen };
}

/** Commands Redis ran (every command, scripts' inner calls included), INFO itself excluded. */
async function commandsRun(): Promise<number> {
  const info = await env.raw.info('commandstats');
  let total = 0;
  for (const [, name, calls] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (name !== 'info') total += Number(calls);
  }
  return total;
}

/** A log entry whose pub/sub message was lost: written as the fan-out script does, never published. */
async function lostEntry(uri: string): Promise<void> {
  const n = await env.raw.incr(`${env.prefix}{ev}:n`);
  const json = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
  await env.raw.xadd(`${env.prefix}{ev}`, `${n}-0`, 'k', 'u', 'x', uri, 'j', json);
}

/** A resync of a session subscribed to db://a: its update, then every list change. */
const RESYNC_OF_A = [
  'notifications/resources/updated db://a',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
];

describe('Redis fan-out', () => {
  it('runs the same number of Redis commands per notification for 5 and for 300 subscribers', async () => {
    const [a] = await env.instances(1, { heartbeatMs: 60_000 });
    const measure = async (uri: string, subscribers: number): Promise<number> => {
      const streams: FakeConnection[] = [];
      for (let i = 0; i < subscribers; i++) {
        const sid = await session(a);
        await a.subscriptions.subscribe(sid, uri);
        const stream = new FakeConnection();
        await a.liveStreams.attach(sid, stream);
        streams.push(stream);
      }
      const before = await commandsRun();
      expect((await a.fanout.resourceUpdated(uri)).sessions).toBe(subscribers);
      const used = (await commandsRun()) - before;
      for (const stream of streams) await stream.waitFor(updated(uri));
      return used;
    };
    // The log's first entry checks for a log that outlived its counter (one more command, once).
    await a.fanout.resourceUpdated('db://first');
    const few = await measure('db://few', 5);
    const many = await measure('db://many', 300);
    expect(many).toBe(few);
    expect(few).toBeLessThanOrEqual(6);
  }, 60_000);

  it('a session without a stream gets nothing written per notification', async () => {
    const [a] = await env.instances(1);
    const sid = await session(a);
    await a.subscriptions.subscribe(sid, 'db://a');
    for (let i = 0; i < 5; i++) await a.fanout.resourceUpdated('db://a');
    expect(await env.raw.exists(`${env.prefix}s:{b0}:${sid}:out`)).toBe(0);
    expect(await env.raw.xlen(`${env.prefix}{ev}`)).toBe(5);
  });

  it('a subscription made on B reaches the stream held on A before a notification sent through C', async () => {
    const [a, b, c] = await env.instances(3);
    const sid = await session(a);
    await b.subscriptions.subscribe(sid, 'db://base');
    const stream = new FakeConnection();
    await a.liveStreams.attach(sid, stream);
    for (let i = 0; i < 20; i++) {
      const uri = `db://race/${i}`;
      await b.subscriptions.subscribe(sid, uri);
      await c.fanout.resourceUpdated(uri);
      await stream.waitFor(updated(uri));
    }
    // Unsubscribed on B: a notification through C right after no longer reaches A's stream.
    await b.subscriptions.unsubscribe(sid, 'db://race/0');
    await c.fanout.resourceUpdated('db://race/0');
    await c.fanout.resourceUpdated('db://base');
    await stream.waitFor(updated('db://base'));
    expect(stream.summary.filter((line) => line.endsWith('db://race/0'))).toHaveLength(1);
    expect(stream.summary).toHaveLength(21);
  });

  it('replays the outbox and the log merged in the order written, with the ids the live stream had', async () => {
    const [a, b] = await env.instances(2);
    const sid = await session(a);
    for (const uri of ['db://a', 'db://b']) await a.subscriptions.subscribe(sid, uri);
    const live = new FakeConnection();
    await a.liveStreams.attach(sid, live);
    // B learns that another instance holds the stream (as on any request of the session).
    await b.sessions.access(sid, Date.now(), 60_000);
    const ping = (id: number) => `{"jsonrpc":"2.0","method":"ping","id":${id}}`;

    await b.fanout.resourceUpdated('db://a');
    const first = await live.waitFor(updated('db://a'));
    expect(b.liveStreams.send(sid, ping(1))).toBe(true);
    await live.waitFor((sent) => sent.message.id === 1);
    await b.fanout.resourceUpdated('db://other');
    await b.fanout.resourceUpdated('db://b');
    await live.waitFor(updated('db://b'));
    expect(b.liveStreams.send(sid, ping(2))).toBe(true);
    await live.waitFor((sent) => sent.message.id === 2);
    await b.fanout.resourceUpdated('db://a');
    await live.waitForCount(5);
    expect(live.sent.map((sent) => sent.eventId)).toEqual([...new Set(live.sent.map((sent) => sent.eventId))]);

    const resumed = new FakeConnection();
    expect(await b.liveStreams.attach(sid, resumed, first.eventId)).toBe(true);
    await resumed.waitForCount(4);
    expect(resumed.sent.map((sent) => [sent.json, sent.eventId])).toEqual(
      live.sent.slice(1).map((sent) => [sent.json, sent.eventId]),
    );
    await live.waitClosed();
  });

  it('coalesces a URI updated several times while away; a resume with the latest id replays nothing', async () => {
    const [a, b] = await env.instances(2);
    const { sid, seen } = await awayAfterOneUpdate(a);
    for (let i = 0; i < 4; i++) await b.fanout.resourceUpdated('db://a');
    await b.fanout.resourceUpdated('db://elsewhere');

    const resumed = new FakeConnection();
    await b.liveStreams.attach(sid, resumed, seen.eventId);
    expect(resumed.summary).toEqual(['notifications/resources/updated db://a']);
    // Live again: the next event's id is past everything, so resuming with it replays nothing.
    await a.fanout.resourceUpdated('db://a');
    const latest = await resumed.waitFor(updated('db://a'), 1);
    b.liveStreams.detach(sid, resumed);
    const again = new FakeConnection();
    await a.liveStreams.attach(sid, again, latest.eventId);
    expect(again.sent).toEqual([]);
  });

  it('resyncs a cursor whose log entries were trimmed, even when none of them concerned the session', async () => {
    const [a] = await env.instances(1, { notificationLogLength: 10 });
    const { sid, seen } = await awayAfterOneUpdate(a);
    // MAXLEN ~ drops whole nodes (100 entries by default): enough entries to drop the first.
    for (let i = 0; i < 250; i++) await a.fanout.resourceUpdated(`db://noise/${i}`);
    expect(
      Number((await env.raw.xrange(`${env.prefix}{ev}`, '-', '+', 'COUNT', 1))[0][0].split('-')[0]),
    ).toBeGreaterThan(2);

    const late = new FakeConnection();
    await a.liveStreams.attach(sid, late, seen.eventId);
    expect(late.summary).toEqual(RESYNC_OF_A);
  });

  it('catches up a lost publish from the log when the next notification shows the gap, in order', async () => {
    const [a, b] = await env.instances(2, { heartbeatMs: 60_000 });
    const sid = await session(a);
    for (const uri of ['db://lost', 'db://next']) await a.subscriptions.subscribe(sid, uri);
    const stream = new FakeConnection();
    await a.liveStreams.attach(sid, stream);
    await lostEntry('db://lost');
    await b.fanout.resourceUpdated('db://next');
    await stream.waitFor(updated('db://next'));
    expect(stream.summary).toEqual([
      'notifications/resources/updated db://lost',
      'notifications/resources/updated db://next',
    ]);
  });

  it('catches up a lost publish at the heartbeat when no notification follows', async () => {
    const [a] = await env.instances(1, { heartbeatMs: 100 });
    const sid = await session(a);
    await a.subscriptions.subscribe(sid, 'db://lost');
    const stream = new FakeConnection();
    await a.liveStreams.attach(sid, stream);
    await lostEntry('db://lost');
    await stream.waitFor(updated('db://lost'));
    expect(stream.summary).toEqual(['notifications/resources/updated db://lost']);
  });

  it('closes its streams with a retry hint when the entries it missed are gone from the log; the client resyncs', async () => {
    const [a, b] = await env.instances(2, { heartbeatMs: 60_000, notificationLogLength: 10 });
    const sid = await session(a);
    await a.subscriptions.subscribe(sid, 'db://a');
    const stream = new FakeConnection();
    await a.liveStreams.attach(sid, stream);
    await b.fanout.resourceUpdated('db://a');
    const seen = await stream.waitFor(updated('db://a'));
    // 250 entries whose messages were lost, trimmed as the fan-out script trims.
    for (let i = 0; i < 250; i++) {
      const n = await env.raw.incr(`${env.prefix}{ev}:n`);
      await env.raw.xadd(`${env.prefix}{ev}`, 'MAXLEN', '~', 10, `${n}-0`, 'k', 'u', 'x', 'db://a', 'j', '{}');
    }
    await b.fanout.resourceUpdated('db://a');
    await stream.waitClosed();
    expect(stream.closedWith).toBeGreaterThan(0);
    expect(stream.summary).toEqual(['notifications/resources/updated db://a']);

    const resumed = new FakeConnection();
    await b.liveStreams.attach(sid, resumed, seen.eventId);
    expect(resumed.summary).toEqual(RESYNC_OF_A);
  });

  it('follows the log again after it restarted empty (Redis flushed)', async () => {
    const [a, b] = await env.instances(2);
    const before = await session(a);
    await a.subscriptions.subscribe(before, 'db://a');
    const old = new FakeConnection();
    await a.liveStreams.attach(before, old);
    for (let i = 0; i < 3; i++) await b.fanout.resourceUpdated('db://a');
    await old.waitForCount(3);
    a.liveStreams.detach(before, old);
    await env.raw.del(`${env.prefix}{ev}`, `${env.prefix}{ev}:n`);

    const sid = await session(a);
    await a.subscriptions.subscribe(sid, 'db://a');
    const stream = new FakeConnection();
    await a.liveStreams.attach(sid, stream);
    await b.fanout.resourceUpdated('db://a');
    await stream.waitFor(updated('db://a'));
  });

  it('continues the log when its counter alone was lost', async () => {
    const [a] = await env.instances(1);
    const sid = await session(a);
    await a.subscriptions.subscribe(sid, 'db://a');
    const stream = new FakeConnection();
    await a.liveStreams.attach(sid, stream);
    for (let i = 0; i < 3; i++) await a.fanout.resourceUpdated('db://a');
    await stream.waitForCount(3);
    await env.raw.del(`${env.prefix}{ev}:n`);
    await a.fanout.resourceUpdated('db://a');
    await stream.waitForCount(4);
    expect(await env.raw.get(`${env.prefix}{ev}:n`)).toBe('4');
  });

  it('reads its streams’ subscriptions again after the subscriber reconnected', async () => {
    const [a, b] = await env.instances(2);
    const sid = await session(a);
    const stream = new FakeConnection();
    await a.liveStreams.attach(sid, stream);
    await env.raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    // Published while A's subscriber is away (or just back): its message may be lost.
    await b.subscriptions.subscribe(sid, 'db://later');
    const deadline = Date.now() + 5_000;
    while (!stream.summary.includes('notifications/resources/updated db://later')) {
      expect(Date.now()).toBeLessThan(deadline);
      await b.fanout.resourceUpdated('db://later');
      await stream.waitForCount(1, 100).catch(() => undefined);
    }
  });
});
