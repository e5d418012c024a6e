/**
 * A session's end reaches its stream even when the `end` message was lost (the instance's
 * subscriber was away when it was published): the heartbeat, and the read of the held sessions'
 * subscriptions after a reconnect, find held sessions that Redis no longer has, and announce
 * their end once. Both go to Redis in calls of at most 500 sessions. A lost end is made here by
 * deleting the session's keys as its end does, without the publish. Runs on a `redis-server` of
 * its own (it reads MONITOR and kills the subscriber connection).
 */
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { FakeConnection, listChanged, sessionRecord, updated } from '@nest-mcp/server/testing';
import type { McpBackendParts, McpSessionEndReason } from '@nest-mcp/server/backend';
import { redisDeployments } from '../../../test/support/redis-deployments.js';
import {
  callsOfScript,
  watchRedis,
  type MonitoredCommand,
  type RedisWatch,
} from '../../../test/support/redis-monitor.js';
import { until } from '../../../test/support/until.js';
import { DETACH, HEARTBEAT, HELD_SUBSCRIPTIONS } from './lua/delivery.lua.js';
import { preludeFor } from './lua/prelude.lua.js';
import type { RedisDelivery } from './redis-delivery.js';

/** Instances whose heartbeat timer never fires during a test: beats are run by the test. */
const env = redisDeployments({ heartbeatMs: 600_000 });

const deliveryOf = (parts: McpBackendParts) => parts.liveStreams as unknown as RedisDelivery;

async function heldSession(parts: McpBackendParts): Promise<{ sid: string; stream: FakeConnection }> {
  const record = sessionRecord();
  expect(await parts.sessions.create(record, 100_000)).toBe(true);
  const stream = new FakeConnection();
  expect(await parts.liveStreams.attach(record.id, stream)).toBe(true);
  return { sid: record.id, stream };
}

/** Ends a session in Redis as its end script does, except that nobody is told. */
async function loseEnd(sid: string): Promise<void> {
  const s = `${env.prefix}s:{b0}:${sid}`;
  const uris = await env.raw.smembers(`${s}:subs`);
  const pipeline = env.raw.pipeline();
  for (const uri of uris) pipeline.srem(`${env.prefix}sub:${uri}`, sid);
  pipeline.del(s, `${s}:subs`, `${s}:out`, `${s}:rs`, `${s}:rl`);
  pipeline.zrem(`${env.prefix}x:{b0}`, sid);
  pipeline.srem(`${env.prefix}streamed`, sid);
  await pipeline.exec();
}

function endsOf(parts: McpBackendParts): [string, McpSessionEndReason][] {
  const ends: [string, McpSessionEndReason][] = [];
  parts.sessions.onEnded((sid, reason) => void ends.push([sid, reason]));
  return ends;
}

/** The calls of one of the backend's scripts by this deployment, as their ARGV after prefix and instance id. */
const callsOf = (commands: MonitoredCommand[], body: string): string[][] =>
  callsOfScript(commands, preludeFor(false) + body)
    .filter(([scriptPrefix]) => scriptPrefix === env.prefix)
    .map((argv) => argv.slice(2));

/** Watches stopped after each test, passed or not. */
const watches: RedisWatch[] = [];
const watch = async (): Promise<RedisWatch> => {
  const started = await watchRedis(env.redis.url);
  watches.push(started);
  return started;
};

const stopWatches = async (): Promise<void> => {
  await Promise.allSettled(watches.splice(0).map((started) => started.stop()));
};
afterEach(stopWatches);
// A watch a timed-out test started after its afterEach.
afterAll(stopWatches);

describe('Redis: a session end whose message was lost', () => {
  it('closes the held stream at the next heartbeat and is announced once, a late end message included', async () => {
    const [a, b] = await env.instances(2);
    const ends = endsOf(a);
    const { sid, stream } = await heldSession(a);
    const { stream: bystander } = await heldSession(a);
    await loseEnd(sid);

    await deliveryOf(a).heartbeat();

    expect(stream.closed).toBe(true);
    expect(a.liveStreams.holds(sid)).toBe(false);
    expect(ends).toEqual([[sid, 'expired']]);
    expect(bystander.closed).toBe(false);
    // The end message arrives after all: not announced again. A later end is the barrier.
    await env.raw.publish(`${env.prefix}{ev}:bus`, JSON.stringify({ t: 'end', sid, reason: 'deleted', from: 'i2' }));
    const later = sessionRecord();
    await b.sessions.create(later, 100);
    await b.sessions.end(later.id, 'deleted');
    await until(() => ends.length === 2, 'the later end announced on A');
    expect(ends).toEqual([
      [sid, 'expired'],
      [later.id, 'deleted'],
    ]);
  });

  it('closes the held stream when the subscriber reconnects, without waiting for a heartbeat', async () => {
    const [a] = await env.instances(1);
    const ends = endsOf(a);
    const { sid, stream } = await heldSession(a);
    await loseEnd(sid);

    await env.raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub');

    await stream.waitClosed();
    expect(ends).toEqual([[sid, 'expired']]);
  });

  it('after a reconnect, a held session that unsubscribed from everything meanwhile gets none of those URIs', async () => {
    const [a, b] = await env.instances(2);
    const { sid, stream } = await heldSession(a);
    await a.subscriptions.subscribe(sid, 'db://x');
    // The unsubscribe's message to A is lost: the session's set is empty, A's index does not know.
    await env.raw.srem(`${env.prefix}s:{b0}:${sid}:subs`, 'db://x');
    await env.raw.srem(`${env.prefix}sub:db://x`, sid);
    const gone = await heldSession(a);
    await loseEnd(gone.sid);

    await env.raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await gone.stream.waitClosed();
    await b.fanout.resourceUpdated('db://x');
    await b.fanout.listChanged('tools');

    await stream.waitFor(listChanged);
    expect(stream.summary).toEqual(['notifications/tools/list_changed']);
    await a.subscriptions.subscribe(sid, 'db://y');
    await b.fanout.resourceUpdated('db://y');
    await stream.waitFor(updated('db://y'));
  });

  it('heartbeat, subscriptions read again and releases go in calls of at most 500 sessions; every lost end is found', async () => {
    const [a] = await env.instances(1);
    const held: { sid: string; stream: FakeConnection }[] = [];
    for (let i = 0; i < 1_100; i++) held.push(await heldSession(a));
    const lost = [0, 700, 1_099];
    for (const i of lost) await loseEnd(held[i].sid);

    const beat = await watch();
    await deliveryOf(a).heartbeat();
    const beats = callsOf(await beat.stop(), HEARTBEAT).map((argv) => argv.length - 2);

    expect(beats).toEqual([500, 500, 100]);
    expect(held.filter(({ stream }) => stream.closed).map(({ sid }) => sid)).toEqual(lost.map((i) => held[i].sid));

    const reads = await watch();
    await env.raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await until(
      () => callsOf(reads.commands, HELD_SUBSCRIPTIONS).reduce((sum, argv) => sum + argv.length, 0) === 1_097,
      'the held sessions’ subscriptions read again',
    );
    expect(callsOf(await reads.stop(), HELD_SUBSCRIPTIONS).map((argv) => argv.length)).toEqual([500, 500, 97]);

    const drain = await watch();
    await a.liveStreams.drain();
    expect(callsOf(await drain.stop(), DETACH).map((argv) => (argv.length - 1) / 2)).toEqual([500, 500, 97]);
  }, 60_000);
});
