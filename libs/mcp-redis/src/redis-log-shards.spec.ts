/**
 * The notification log spread over several shards (`notificationLogShards`), on one Redis of the
 * file's own (the shards are slots of a cluster; one Redis serves them all the same): each
 * notification goes through its URI's shard and reaches its streams once, a GET event id carries
 * one position per shard and a resume replays exactly what came after it, a position gone from
 * one shard resyncs, the replay window counts every shard, a lost publish is caught up from its
 * shard, and a notification costs the same commands as with one log.
 */
import { describe, expect, it } from '@jest/globals';
import { FakeConnection, sessionRecord, updated } from '@nest-mcp/server/testing';
import type { McpBackendParts } from '@nest-mcp/server/backend';
import { redisDeployments } from '../../../test/support/redis-deployments.js';
import { RedisKeys } from './redis-keys.js';

const SHARDS = 4;
const env = redisDeployments({ heartbeatMs: 200, notificationLogShards: SHARDS });
const keys = new RedisKeys('', 1, false, SHARDS);

/** One URI per log shard (`uris[k]` goes through shard k). */
const uris: string[] = [];
for (let i = 0; uris.filter(Boolean).length < SHARDS; i++) {
  const uri = `db://s/${i}`;
  uris[keys.logShardOf(uri)] ??= uri;
}

/** The key of a log shard under the latest deployment's prefix. */
const logKey = (shard: number) => env.prefix + keys.log(shard);

async function session(parts: McpBackendParts): Promise<string> {
  const record = sessionRecord();
  expect(await parts.sessions.create(record, 10_000)).toBe(true);
  return record.id;
}

/** A session subscribed to `subscribed`, with a stream held on `parts`. */
async function streaming(parts: McpBackendParts, subscribed: readonly string[]) {
  const sid = await session(parts);
  for (const uri of subscribed) await parts.subscriptions.subscribe(sid, uri);
  const stream = new FakeConnection();
  await parts.liveStreams.attach(sid, stream);
  return { sid, stream };
}

/** A log entry whose pub/sub message was lost: written in its shard as the fan-out script does, never published. */
async function lostEntry(uri: string): Promise<void> {
  const shard = keys.logShardOf(uri);
  const n = await env.raw.incr(`${logKey(shard)}:n`);
  const json = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
  await env.raw.xadd(logKey(shard), `${n}-0`, 'k', 'u', 'x', uri, 'j', json);
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

const LIST_CHANGES = [
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
];

describe('Redis notification log over several shards', () => {
  it('spreads the URIs used here over every shard, each entry in its URI’s shard', async () => {
    const [a] = await env.instances(1);
    for (const uri of uris) await a.fanout.resourceUpdated(uri);
    for (let shard = 0; shard < SHARDS; shard++) {
      const rows = await env.raw.xrange(logKey(shard), '-', '+');
      expect(rows.map(([id, fields]) => [id, fields[3]])).toEqual([['1-0', uris[shard]]]);
      expect(await env.raw.get(`${logKey(shard)}:n`)).toBe('1');
    }
  });

  it('delivers notifications of URIs on different shards once each, to the streams of every instance', async () => {
    const [a, b, c] = await env.instances(3);
    const onA = await streaming(a, uris);
    const onB = await streaming(b, [uris[1], uris[3]]);
    for (let round = 0; round < 3; round++) for (const uri of uris) await c.fanout.resourceUpdated(uri);
    await c.fanout.listChanged('tools');
    await onA.stream.waitFor((sent) => sent.message.method === 'notifications/tools/list_changed');
    await onB.stream.waitFor((sent) => sent.message.method === 'notifications/tools/list_changed');

    for (const uri of uris) {
      expect(onA.stream.summary.filter((line) => line.endsWith(` ${uri}`))).toHaveLength(3);
      expect(onB.stream.summary.filter((line) => line.endsWith(` ${uri}`))).toHaveLength(
        uri === uris[1] || uri === uris[3] ? 3 : 0,
      );
    }
    expect(onA.stream.summary).toHaveLength(13);
    // Within one URI, the order sent; every id distinct, each carrying one position per shard.
    const ids = onA.stream.sent.map((sent) => sent.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^g:[A-Za-z0-9_-]+-\d+_\d+_\d+_\d+_\d+:\d+$/);
  });

  it('replays exactly what a Last-Event-ID missed on every shard, merged with the outbox, with the live ids', async () => {
    const [a, b] = await env.instances(2);
    const { sid, stream: live } = await streaming(a, uris);
    await b.sessions.access(sid, Date.now(), 60_000);
    const ping = (id: number) => `{"jsonrpc":"2.0","method":"ping","id":${id}}`;

    await b.fanout.resourceUpdated(uris[0]);
    const first = await live.waitFor(updated(uris[0]));
    for (const uri of uris.slice(1)) await b.fanout.resourceUpdated(uri);
    await live.waitFor(updated(uris[SHARDS - 1]));
    expect(b.liveStreams.send(sid, ping(1))).toBe(true);
    await live.waitFor((sent) => sent.message.id === 1);
    await b.fanout.resourceUpdated('db://nobody');
    await b.fanout.resourceUpdated(uris[0]);
    await live.waitFor(updated(uris[0]), 1);
    await b.fanout.listChanged('prompts');
    await live.waitForCount(7);

    const resumed = new FakeConnection();
    expect(await b.liveStreams.attach(sid, resumed, first.eventId)).toBe(true);
    await resumed.waitForCount(6);
    expect(resumed.sent.map((sent) => [sent.json, sent.eventId])).toEqual(
      live.sent.slice(1).map((sent) => [sent.json, sent.eventId]),
    );
    await live.waitClosed();

    // From the latest id, nothing is missed on any shard.
    const latest = resumed.sent.at(-1)!.eventId;
    b.liveStreams.detach(sid, resumed);
    const again = new FakeConnection();
    expect(await a.liveStreams.attach(sid, again, latest)).toBe(true);
    expect(again.sent).toEqual([]);
  });

  it('resyncs when the cursor’s position is gone from one shard, the others still holding theirs', async () => {
    const [a] = await env.instances(1, { notificationLogLength: 10 });
    const { sid, stream } = await streaming(a, [uris[0], uris[1]]);
    await a.fanout.resourceUpdated(uris[0]);
    await a.fanout.resourceUpdated(uris[1]);
    const seen = await stream.waitFor(updated(uris[1]));
    a.liveStreams.detach(sid, stream);
    // MAXLEN ~ drops whole nodes (100 entries by default): enough entries of shard 1 alone to drop its first.
    for (let i = 0; i < 250; i++) await a.fanout.resourceUpdated(uris[1]);
    expect(Number((await env.raw.xrange(logKey(1), '-', '+', 'COUNT', 1))[0][0].split('-')[0])).toBeGreaterThan(2);
    expect(await env.raw.xlen(logKey(0))).toBe(1);

    const late = new FakeConnection();
    expect(await a.liveStreams.attach(sid, late, seen.eventId)).toBe(true);
    // The resync: one update per subscribed URI (in the set's order), then every list change.
    expect([...late.summary.slice(0, 2)].sort()).toEqual(
      [`notifications/resources/updated ${uris[0]}`, `notifications/resources/updated ${uris[1]}`].sort(),
    );
    expect(late.summary.slice(2)).toEqual(LIST_CHANGES);
  });

  it('counts the replay window over every shard together, as with one log', async () => {
    const [a] = await env.instances(1, { replayWindow: 10 });
    const { sid, stream } = await streaming(a, [uris[0]]);
    await a.fanout.resourceUpdated(uris[0]);
    const seen = await stream.waitFor(updated(uris[0]));
    a.liveStreams.detach(sid, stream);
    // 4 entries in each shard: no shard is 10 behind, all of them together are 16.
    for (let i = 0; i < 4; i++) for (const uri of uris) await a.fanout.resourceUpdated(uri);

    const late = new FakeConnection();
    expect(await a.liveStreams.attach(sid, late, seen.eventId)).toBe(true);
    expect(late.summary).toEqual([`notifications/resources/updated ${uris[0]}`, ...LIST_CHANGES]);
    // Within the window, the same absence replays.
    const [b] = await env.instances(1, { replayWindow: 16 });
    const fresh = await streaming(b, [uris[0]]);
    await b.fanout.resourceUpdated(uris[0]);
    const cursor = await fresh.stream.waitFor(updated(uris[0]));
    b.liveStreams.detach(fresh.sid, fresh.stream);
    for (let i = 0; i < 4; i++) for (const uri of uris) await b.fanout.resourceUpdated(uri);
    const resumed = new FakeConnection();
    expect(await b.liveStreams.attach(fresh.sid, resumed, cursor.eventId)).toBe(true);
    expect(resumed.summary).toEqual([`notifications/resources/updated ${uris[0]}`]);
  });

  it('catches up a lost publish from its shard, when the next notification of that shard shows the gap', async () => {
    const [a, b] = await env.instances(2, { heartbeatMs: 60_000 });
    const { stream } = await streaming(a, [...uris, 'db://lost']);
    const lostShard = keys.logShardOf('db://lost');
    await lostEntry('db://lost');
    // A notification of another shard shows no gap; the next one of the lost entry's shard does.
    const other = uris[(lostShard + 1) % SHARDS];
    await b.fanout.resourceUpdated(other);
    await stream.waitFor(updated(other));
    expect(stream.summary).toEqual([`notifications/resources/updated ${other}`]);
    await b.fanout.resourceUpdated(uris[lostShard]);
    await stream.waitFor(updated(uris[lostShard]));
    expect(stream.summary.slice(1)).toEqual([
      'notifications/resources/updated db://lost',
      `notifications/resources/updated ${uris[lostShard]}`,
    ]);
  });

  it('catches up a lost publish of any shard at the heartbeat when no notification follows', async () => {
    const [a] = await env.instances(1, { heartbeatMs: 100 });
    const { stream } = await streaming(a, uris);
    await lostEntry(uris[3]);
    await lostEntry(uris[1]);
    await stream.waitForCount(2);
    expect([...stream.summary].sort()).toEqual(
      [`notifications/resources/updated ${uris[1]}`, `notifications/resources/updated ${uris[3]}`].sort(),
    );
  });

  it('after its subscriber reconnected, writes every shard’s notifications once, the lost ones caught up', async () => {
    const [a, b] = await env.instances(2, { heartbeatMs: 100 });
    const { stream } = await streaming(a, uris);
    await env.raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    // Published while A's subscriber is away (or just back): their messages may be lost.
    for (const uri of uris) await b.fanout.resourceUpdated(uri);
    await stream.waitForCount(SHARDS);
    for (const uri of uris) await b.fanout.resourceUpdated(uri);
    await stream.waitForCount(2 * SHARDS);
    for (const uri of uris) {
      expect(stream.summary.filter((line) => line === `notifications/resources/updated ${uri}`)).toHaveLength(2);
    }
    expect(stream.sent).toHaveLength(2 * SHARDS);
  });

  it('runs as many Redis commands per notification as with one log', async () => {
    const measure = async (shards: number): Promise<number> => {
      const [a] = await env.instances(1, { heartbeatMs: 60_000, notificationLogShards: shards });
      const { stream } = await streaming(a, uris);
      // Each shard's first entry checks for a log that outlived its counter (one more command, once).
      for (const uri of uris) await a.fanout.resourceUpdated(uri);
      await stream.waitForCount(SHARDS);
      const before = await commandsRun();
      await a.fanout.resourceUpdated(uris[2]);
      const used = (await commandsRun()) - before;
      await stream.waitForCount(SHARDS + 1);
      return used;
    };
    const one = await measure(1);
    expect(await measure(SHARDS)).toBe(one);
  });
});
