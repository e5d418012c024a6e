/**
 * The work of one GET stream's attach in Redis is bounded by settings, whatever `Last-Event-ID`
 * the client sends: the id is checked against the heads and the log's first entry before
 * anything is read, every read has a `COUNT` (at most `replayWindow` log entries and
 * `replayBufferSize` outbox entries), and a resync writes at most `replayBufferSize` entries.
 * What the scripts read is watched with MONITOR (it lists the commands a script runs, with their
 * arguments), so nothing here depends on timing. Runs on a `redis-server` of its own.
 */
import { describe, expect, it } from '@jest/globals';
import { FakeConnection, sessionRecord } from '@nest-mcp/server/testing';
import type { McpModuleOptions } from '@nest-mcp/server';
import type { McpBackendParts } from '@nest-mcp/server/backend';
import { redisDeployments } from '../../../test/support/redis-deployments.js';
import { scriptCommands as watched } from '../../../test/support/redis-monitor.js';
import type { RedisMcpBackendOptions } from './redis.backend.js';

const env = redisDeployments({ heartbeatMs: 60_000 });

/** Entries in the notification log before the instance starts. */
const LOGGED = 5_000;
const DEFAULT_WINDOW = 1_000;

/** The commands the backend's scripts ran while `work` ran. */
const scriptCommands = (work: () => Promise<unknown>) => watched(env.redis.url, work);

const updatedJson = (uri: string) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });

/**
 * A log of `LOGGED` entries, as the fan-out script writes them (none trimmed): entry 1 updates
 * db://a, entry `LOGGED - 5` updates db://b, the others are noise nobody subscribed to.
 */
async function fillLog(): Promise<void> {
  const pipeline = env.raw.pipeline();
  for (let n = 1; n <= LOGGED; n++) {
    const uri = n === 1 ? 'db://a' : n === LOGGED - 5 ? 'db://b' : `db://noise/${n}`;
    pipeline.xadd(`${env.prefix}{ev}`, `${n}-0`, 'k', 'u', 'x', uri, 'j', updatedJson(uri));
  }
  pipeline.set(`${env.prefix}{ev}:n`, LOGGED);
  await pipeline.exec();
}

/** One instance on a fresh key prefix whose log holds `LOGGED` entries, and a session subscribed to db://a and db://b. */
async function start(
  options: Partial<RedisMcpBackendOptions> = {},
  module: Partial<McpModuleOptions> = {},
): Promise<{ parts: McpBackendParts; sid: string; epoch: string }> {
  env.newPrefix();
  await fillLog();
  const [parts] = await env.instances(1, options, module);
  const record = sessionRecord();
  expect(await parts.sessions.create(record, 100)).toBe(true);
  for (const uri of ['db://a', 'db://b']) expect(await parts.subscriptions.subscribe(record.id, uri)).toBe(true);
  const epoch = (await env.raw.hget(`${env.prefix}s:{b0}:${record.id}`, 'ep'))!;
  return { parts, sid: record.id, epoch };
}

/** The ranges the scripts read of `key`, as [command, count] ('none' when a read had no COUNT). */
const rangeReads = (commands: string[][], key: string): [string, number | 'none'][] =>
  commands
    .filter(([name, target]) => /^x(rev)?range$/i.test(name) && target === key)
    .map((args) => {
      const at = args.findIndex((arg) => arg.toUpperCase() === 'COUNT');
      return [args[0].toUpperCase(), at < 0 ? 'none' : Number(args[at + 1])];
    });

const outboxWrites = (commands: string[][], sid: string): number =>
  commands.filter(([name, target]) => name.toUpperCase() === 'XADD' && target === `${env.prefix}s:{b0}:${sid}:out`)
    .length;

/** A resync of a session subscribed to db://a and db://b: their updates (in set order), then every list change. */
const isResync = (summary: string[]): boolean =>
  summary.length === 5 &&
  [...summary.slice(0, 2)].sort().join() ===
    ['notifications/resources/updated db://a', 'notifications/resources/updated db://b'].join() &&
  summary.slice(2).join() ===
    [
      'notifications/resources/list_changed',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ].join();

describe('Redis attach: bounded work whatever Last-Event-ID says', () => {
  it(`resyncs an id ${LOGGED} entries behind the head (all still in the log) without reading the log`, async () => {
    const { parts, sid, epoch } = await start();
    const stream = new FakeConnection();

    const commands = await scriptCommands(() => parts.liveStreams.attach(sid, stream, `g:${epoch}-0:0`));

    expect(isResync(stream.summary)).toBe(true);
    expect(rangeReads(commands, `${env.prefix}{ev}`)).toEqual([]);
    expect(rangeReads(commands, `${env.prefix}s:{b0}:${sid}:out`)).toEqual([]);
  });

  it('replays an id within the window, reading exactly its gap of the log', async () => {
    const { parts, sid, epoch } = await start();
    const stream = new FakeConnection();

    const commands = await scriptCommands(() => parts.liveStreams.attach(sid, stream, `g:${epoch}-0:${LOGGED - 10}`));

    expect(stream.summary).toEqual(['notifications/resources/updated db://b']);
    expect(stream.sent[0].eventId).toBe(`g:${epoch}-0:${LOGGED - 5}`);
    expect(rangeReads(commands, `${env.prefix}{ev}`)).toEqual([
      ['XRANGE', 1],
      ['XRANGE', 10],
    ]);
  });

  it('the window is a setting: one entry past it resyncs unread, at it replays', async () => {
    const { parts, sid, epoch } = await start({ replayWindow: 100 });
    const past = new FakeConnection();
    const pastReads = await scriptCommands(() => parts.liveStreams.attach(sid, past, `g:${epoch}-0:${LOGGED - 101}`));
    expect(isResync(past.summary)).toBe(true);
    expect(rangeReads(pastReads, `${env.prefix}{ev}`)).toEqual([]);

    const at = new FakeConnection();
    // The resync above wrote 5 outbox entries: this id has seen them.
    const atReads = await scriptCommands(() => parts.liveStreams.attach(sid, at, `g:${epoch}-5:${LOGGED - 100}`));
    expect(at.summary).toEqual(['notifications/resources/updated db://b']);
    expect(rangeReads(atReads, `${env.prefix}{ev}`)).toEqual([
      ['XRANGE', 1],
      ['XRANGE', 100],
    ]);
  });

  it('forged ids of every shape resync, and nothing is read', async () => {
    const { parts, sid, epoch } = await start({}, { delivery: { replayBufferSize: 8 } });
    // Each takes the session's outbox sequence (what a genuine id would carry) and forges the rest.
    const forged: ((out: number) => string)[] = [
      (out) => `g:${epoch}-${out}:0`,
      (out) => `g:${epoch}-${out}:${LOGGED - DEFAULT_WINDOW - 1}`,
      (out) => `g:${epoch}-${out}:${LOGGED + 1}`,
      (out) => `g:${epoch}-${out + 1}:${LOGGED}`,
      () => `g:${epoch}-0:${LOGGED}`,
      () => `g:${epoch}-999999999999999:999999999999999`,
      () => `g:${epoch}-99999999999999999999:${LOGGED}`,
      (out) => `g:${epoch}-${out}:${'9'.repeat(400)}`,
      (out) => `g:${epoch}-${out}:1e3`,
      () => `g:${epoch}-0x1:${LOGGED}`,
      () => `g:${epoch}--1:${LOGGED}`,
      (out) => `g:${epoch}-${out}:-1`,
      (out) => `g:${epoch}-${out}`,
      () => `g:${epoch}`,
      () => 'g:',
      (out) => `g:AAAAAAAA-${out}:${LOGGED}`,
      (out) => `g:${'a'.repeat(4_000)}-${out}:${LOGGED}`,
      () => `p:${epoch}:1`,
      () => 'nonsense',
      () => '',
    ];
    for (const forge of forged) {
      const lastEventId = forge(Number(await env.raw.hget(`${env.prefix}s:{b0}:${sid}`, 'seq')));
      const stream = new FakeConnection();
      const commands = await scriptCommands(() => parts.liveStreams.attach(sid, stream, lastEventId));
      const shown = lastEventId.slice(0, 80);
      expect([shown, isResync(stream.summary)]).toEqual([shown, true]);
      expect([shown, rangeReads(commands, `${env.prefix}{ev}`)]).toEqual([shown, []]);
      expect([shown, rangeReads(commands, `${env.prefix}s:{b0}:${sid}:out`)]).toEqual([shown, []]);
    }
  });

  it('an outbox cursor further back than the outbox keeps resyncs without reading it', async () => {
    const { parts, sid, epoch } = await start({}, { delivery: { replayBufferSize: 3 } });
    // Two resyncs: 10 outbox sequences, of which the outbox keeps the last 3.
    for (let i = 0; i < 2; i++) await parts.liveStreams.attach(sid, new FakeConnection(), 'nonsense');
    const stream = new FakeConnection();

    const commands = await scriptCommands(() => parts.liveStreams.attach(sid, stream, `g:${epoch}-6:${LOGGED}`));

    expect(isResync(stream.summary)).toBe(true);
    expect(rangeReads(commands, `${env.prefix}s:{b0}:${sid}:out`)).toEqual([]);
    // Within what it keeps: read with the gap as its COUNT.
    const resumed = new FakeConnection();
    const last = stream.sent.at(-1)!.eventId!;
    const lastOut = Number(/-(\d+):/.exec(last)![1]);
    const replayed = await scriptCommands(() =>
      parts.liveStreams.attach(sid, resumed, `g:${epoch}-${lastOut - 2}:${LOGGED}`),
    );
    expect(resumed.summary).toEqual(stream.summary.slice(-2));
    expect(rangeReads(replayed, `${env.prefix}s:{b0}:${sid}:out`)).toEqual([['XRANGE', 2]]);
  });

  it('a resync writes at most replayBufferSize outbox entries, whatever the number of subscriptions', async () => {
    const { parts, sid } = await start({}, { delivery: { replayBufferSize: 4 } });
    for (let i = 0; i < 30; i++) await parts.subscriptions.subscribe(sid, `db://many/${i}`);
    const stream = new FakeConnection();

    const commands = await scriptCommands(() => parts.liveStreams.attach(sid, stream, 'nonsense'));

    // 32 updates and 3 list changes, each with its own id, in order.
    expect(stream.sent).toHaveLength(35);
    const seqs = stream.sent.map((sent) => Number(/-(\d+):/.exec(sent.eventId!)![1]));
    expect(seqs).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    expect(outboxWrites(commands, sid)).toBe(4);
    // The outbox holds the last 4 of them: a resume from the 31st replays the last 4.
    const resumed = new FakeConnection();
    await parts.liveStreams.attach(sid, resumed, stream.sent[30].eventId);
    expect(resumed.sent.map((sent) => sent.json)).toEqual(stream.sent.slice(31).map((sent) => sent.json));
  });
});
