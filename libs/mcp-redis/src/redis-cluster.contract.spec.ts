/**
 * The Redis backend against the backend contract (the task store's included) on a Redis
 * Cluster: three masters with a replica each, started by this file (test/support/redis-cluster).
 * Instances of one deployment are separate backends (own connections, own instance id) sharing
 * one key prefix; the sessions are spread over the default number of buckets, so one test's
 * sessions land on several masters, and the notifications over the default number of log
 * shards. Then the calls a task operation takes on a cluster, where its scripts declare every key
 * they touch; then the sharded notification log on its own: notifications of URIs whose shards
 * are served by different masters, live and resumed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  describeBackendContract,
  deploymentOf,
  FakeConnection,
  sessionRecord,
  taskLimits,
  taskRecord,
  updated,
  type BackendDeployment,
} from '@nest-mcp/server/testing';
import { McpBackendUnavailableError, type McpBackendParts } from '@nest-mcp/server/backend';
import { startCluster, type TestCluster } from '../../../test/support/redis-cluster.mjs';
import { until } from '../../../test/support/until.js';
import { RedisKeys } from './redis-keys.js';
import { RedisScripts } from './redis-scripts.js';
import { RedisMcpBackend } from './redis.backend.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

async function deploy(keyPrefix = cluster.prefix()): Promise<BackendDeployment> {
  let instances = 0;
  return deploymentOf(
    () =>
      new RedisMcpBackend({
        clusterNodes: cluster.seeds,
        keyPrefix,
        instanceId: `i${++instances}`,
        heartbeatMs: 200,
      }),
  );
}

describeBackendContract('Redis Cluster', { shared: true, deploy: () => deploy() });

/** Holds every call of the script `name` until `count` of them arrived, then lets them all go. */
function barrier(name: string, count: number) {
  const original = RedisScripts.prototype.run;
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const spy = jest.spyOn(RedisScripts.prototype, 'run').mockImplementation(async function (
    this: RedisScripts,
    script,
    keys,
    ...args
  ) {
    if (script === name) {
      if (++arrived === count) open();
      await opened;
    }
    return original.call(this, script, keys, ...args);
  });
  return { restore: () => spy.mockRestore(), arrived: () => arrived };
}

describe('Redis Cluster: the task store over buckets', () => {
  it("a poll is one call on any instance; an end takes its bytes in the global counter first, and on an instance that did not create the task asks once for its caller's accounts", async () => {
    const deployment = await deploy();
    const run = jest.spyOn(RedisScripts.prototype, 'run');
    try {
      const a = await deployment.instance();
      const b = await deployment.instance();
      const [mine, theirs] = [taskRecord({ instanceId: 'i1' }, a.tasks), taskRecord({ instanceId: 'i1' }, a.tasks)];
      expect(await a.tasks!.create(mine, taskLimits())).toBe(true);
      expect(await a.tasks!.create(theirs, taskLimits())).toBe(true);
      const callsOf = async (work: () => Promise<unknown>): Promise<string[]> => {
        run.mockClear();
        await work();
        return run.mock.calls.map(([name]) => String(name)).filter((name) => name.startsWith('mcpTask'));
      };
      expect(await callsOf(() => a.tasks!.get(mine.taskId))).toEqual(['mcpTaskGet']);
      expect(await callsOf(() => b.tasks!.get(mine.taskId))).toEqual(['mcpTaskGet']);
      // The creating instance knows the caller's accounts its end touches.
      expect(
        await callsOf(() => a.tasks!.settle(mine.taskId, { status: 'completed', result: {} }, Date.now())),
      ).toEqual(['mcpTaskReserve', 'mcpTaskSettle']);
      // Another asks for them first: one more call.
      expect(await callsOf(() => b.tasks!.settle(theirs.taskId, { status: 'cancelled' }, Date.now()))).toEqual([
        'mcpTaskReserve',
        'mcpTaskSettle',
        'mcpTaskSettle',
      ]);
      expect((await b.tasks!.get(theirs.taskId))?.status).toBe('cancelled');
    } finally {
      run.mockRestore();
      await deployment.close();
    }
  });

  it('tasks of different callers land in different buckets, spread over the masters as callers grow', async () => {
    const keyPrefix = cluster.prefix();
    const deployment = await deploy(keyPrefix);
    try {
      const tasks = (await deployment.instance()).tasks!;
      const records = Array.from({ length: 24 }, (_, n) =>
        taskRecord({ instanceId: 'i1', caller: `p:caller-${n}` }, tasks),
      );
      for (const record of records) expect(await tasks.create(record, taskLimits())).toBe(true);
      const buckets = new Set(records.map((record) => record.taskId.split('.')[0]));
      expect(buckets.size).toBeGreaterThan(12);
      const masters = new Set(
        await Promise.all([...buckets].map((bucket) => cluster.masterOf(`${keyPrefix}{t${bucket}}`))),
      );
      expect(masters.size).toBe(3);
      // A caller's tasks share its bucket: its budget is checked in one place.
      const again = taskRecord({ instanceId: 'i1', caller: 'p:caller-0' }, tasks);
      expect(again.taskId.split('.')[0]).toBe(records[0].taskId.split('.')[0]);
      for (const record of records) expect((await tasks.get(record.taskId))?.caller).toBe(record.caller);
    } finally {
      await deployment.close();
    }
  });

  it("one caller's budget is exact under concurrent creates held until all of them reached the store", async () => {
    const keyPrefix = cluster.prefix();
    const deployment = await deploy(keyPrefix);
    const gate = barrier('mcpTaskCreate', 8);
    try {
      const [a, b] = [await deployment.instance(), await deployment.instance()];
      const records = Array.from({ length: 8 }, () => taskRecord({ instanceId: 'i1', caller: 'p:racer' }, a.tasks));
      const outcomes = await Promise.all(
        records.map((record, n) => (n % 2 ? a : b).tasks!.create(record, taskLimits({ maxPerCaller: 3 }))),
      );
      expect(gate.arrived()).toBe(8);
      expect(outcomes.filter(Boolean)).toHaveLength(3);
      // The places of the refused went back: the global counter holds the three.
      gate.restore();
      const counter = await cluster.command(
        await cluster.masterOf(`${keyPrefix}tasks`),
        'HGET',
        `${keyPrefix}tasks`,
        'n',
      );
      expect(counter).toBe('3');
    } finally {
      gate.restore();
      await deployment.close();
    }
  });

  it('the global bound is never passed by concurrent creates of many callers in different buckets', async () => {
    const deployment = await deploy();
    const gate = barrier('mcpTaskReserve', 12);
    try {
      const [a, b] = [await deployment.instance(), await deployment.instance()];
      const records = Array.from({ length: 12 }, (_, n) =>
        taskRecord({ instanceId: 'i1', caller: `p:many-${n}` }, a.tasks),
      );
      expect(new Set(records.map((record) => record.taskId.split('.')[0])).size).toBeGreaterThan(6);
      const outcomes = await Promise.allSettled(
        records.map((record, n) =>
          (n % 2 ? a : b).tasks!.create(record, taskLimits({ maxPerCaller: 3, maxStored: 5 })),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value)).toHaveLength(5);
      for (const outcome of outcomes.filter((outcome) => outcome.status === 'rejected')) {
        expect(outcome.reason).toBeInstanceOf(McpBackendUnavailableError);
      }
      const stored = await Promise.all(records.map((record) => a.tasks!.get(record.taskId)));
      expect(stored.filter(Boolean)).toHaveLength(5);
    } finally {
      gate.restore();
      await deployment.close();
    }
  });
});

describe('Redis Cluster: the calls of the scripts that delete POST-stream logs', () => {
  it('an end is one call without logs; with logs (an end, an idle lookup, a sweep, an open past the kept number) it asks once for their keys, and deletes them', async () => {
    const keyPrefix = cluster.prefix();
    const deployment = await deploy(keyPrefix);
    const run = jest.spyOn(RedisScripts.prototype, 'run');
    try {
      const a = await deployment.instance();
      const keys = new RedisKeys(keyPrefix, 256);
      const callsOf = async (script: string, work: () => unknown): Promise<number> => {
        run.mockClear();
        await work();
        return run.mock.calls.filter(([name]) => name === script).length;
      };
      const created = async () => {
        const record = sessionRecord();
        expect(await a.sessions.create(record, 100)).toBe(true);
        return record.id;
      };
      /** Keys of the session that exist, of those given (on the master serving its bucket). */
      const existing = async (sid: string, names: string[]) =>
        Number(await cluster.command(await cluster.masterOf(keys.session(sid)), 'EXISTS', ...names));
      /** Opens `count` POST streams of a session, an event logged in each: their logs' keys, once written. */
      const logged = async (sid: string, count: number): Promise<string[]> => {
        const names: string[] = [];
        for (let n = 0; n < count; n++) {
          const answer = new FakeConnection();
          a.postStreams.open(sid, answer).send(JSON.stringify({ jsonrpc: '2.0', id: n, result: {} }));
          const id = /^p:([^:]+):/.exec(answer.sent[0].eventId!)![1];
          names.push(keys.postLog(sid, id), `${keys.session(sid)}:rm:${id}`);
        }
        await until(async () => (await existing(sid, names)) === names.length, 'the answers logged', 10_000);
        return names;
      };

      const bare = await created();
      expect(await callsOf('mcpEnd', () => a.sessions.end(bare, 'deleted'))).toBe(1);

      const ended = await created();
      const endedLogs = await logged(ended, 2);
      expect(await callsOf('mcpEnd', () => a.sessions.end(ended, 'deleted'))).toBe(2);
      expect(await existing(ended, endedLogs)).toBe(0);

      const idle = await created();
      const idleLogs = await logged(idle, 2);
      expect(await callsOf('mcpAccess', () => a.sessions.access(idle, Date.now() + 60_000, 1_000))).toBe(2);
      expect(await a.sessions.access(idle, Date.now(), 60_000)).toBeUndefined();
      expect(await existing(idle, idleLogs)).toBe(0);

      const swept = await created();
      const sweptLogs = await logged(swept, 1);
      expect(await callsOf('mcpExpire', () => a.sessions.expireIdle(Date.now() + 60_000))).toBe(2);
      expect(await a.sessions.access(swept, Date.now(), 60_000)).toBeUndefined();
      expect(await existing(swept, sweptLogs)).toBe(0);

      // Sixteen answers are kept per session: the seventeenth open deletes the oldest log.
      const busy = await created();
      const kept = await logged(busy, 16);
      run.mockClear();
      const [newest] = await logged(busy, 1);
      await until(async () => (await existing(busy, kept.slice(0, 2))) === 0, 'the oldest log deleted', 10_000);
      expect(run.mock.calls.filter(([name]) => name === 'mcpPostOpen').length).toBe(2);
      expect(await existing(busy, [...kept.slice(2), newest])).toBe(kept.length - 1);
    } finally {
      run.mockRestore();
      await deployment.close();
    }
  });
});

describe('Redis Cluster: the notification log over several shards', () => {
  const SHARDS = 16;
  let deployment: BackendDeployment | undefined;
  afterEach(async () => {
    await deployment?.close();
    deployment = undefined;
  });

  /** Three instances of a fresh deployment (the default number of log shards), and its prefix. */
  async function instances(): Promise<{ parts: McpBackendParts[]; prefix: string }> {
    const keyPrefix = cluster.prefix();
    let n = 0;
    const current = (deployment = deploymentOf(
      () => new RedisMcpBackend({ clusterNodes: cluster.seeds, keyPrefix, instanceId: `i${++n}`, heartbeatMs: 200 }),
    ));
    const parts: McpBackendParts[] = [];
    for (let i = 0; i < 3; i++) parts.push(await current.instance());
    return { parts, prefix: keyPrefix };
  }

  /** One URI per master: URIs whose log shards are served by each of the three masters. */
  async function urisOnEveryMaster(prefix: string): Promise<string[]> {
    const keys = new RedisKeys(prefix, 1, true, SHARDS);
    const byMaster = new Map<number, string>();
    for (let i = 0; byMaster.size < 3 && i < 1_000; i++) {
      const uri = `db://m/${i}`;
      const master = await cluster.masterOf(keys.log(keys.logShardOf(uri)));
      if (!byMaster.has(master)) byMaster.set(master, uri);
    }
    expect(byMaster.size).toBe(3);
    return [...byMaster.values()];
  }

  async function session(parts: McpBackendParts, uris: readonly string[]): Promise<string> {
    const record = sessionRecord();
    expect(await parts.sessions.create(record, 10_000)).toBe(true);
    for (const uri of uris) await parts.subscriptions.subscribe(record.id, uri);
    return record.id;
  }

  it('delivers notifications whose shards are on different masters once each, and resumes across them', async () => {
    const {
      parts: [a, b, c],
      prefix,
    } = await instances();
    const uris = await urisOnEveryMaster(prefix);
    const sid = await session(a, uris);
    const live = new FakeConnection();
    expect(await a.liveStreams.attach(sid, live)).toBe(true);
    for (let round = 0; round < 2; round++) for (const uri of uris) await c.fanout.resourceUpdated(uri);
    await c.fanout.listChanged('tools');
    await live.waitFor((sent) => sent.message.method === 'notifications/tools/list_changed');
    for (const uri of uris) expect(live.summary.filter((line) => line.endsWith(` ${uri}`))).toHaveLength(2);
    expect(live.summary).toHaveLength(7);

    // Away: one update of each URI, sent from one instance, then a resume on another.
    const cursor = live.sent.at(-1)!.eventId!;
    a.liveStreams.detach(sid, live);
    for (const uri of [...uris].reverse()) await c.fanout.resourceUpdated(uri);
    await c.fanout.resourceUpdated('db://nobody');
    const resumed = new FakeConnection();
    expect(await b.liveStreams.attach(sid, resumed, cursor)).toBe(true);
    await resumed.waitForCount(3);
    // Exactly the missed ones, in the order that instance sent them.
    expect(resumed.summary).toEqual([...uris].reverse().map((uri) => `notifications/resources/updated ${uri}`));
    // Live again, and a resume from the latest id replays nothing.
    await c.fanout.resourceUpdated(uris[1]);
    const latest = await resumed.waitFor(updated(uris[1]), 3);
    b.liveStreams.detach(sid, resumed);
    const again = new FakeConnection();
    expect(await a.liveStreams.attach(sid, again, latest.eventId)).toBe(true);
    expect(again.sent).toEqual([]);
  });

  it('resyncs when the position of one shard is gone (its stream trimmed away)', async () => {
    const {
      parts: [a, b],
      prefix,
    } = await instances();
    const uris = await urisOnEveryMaster(prefix);
    const sid = await session(a, uris.slice(0, 2));
    const live = new FakeConnection();
    expect(await a.liveStreams.attach(sid, live)).toBe(true);
    await b.fanout.resourceUpdated(uris[0]);
    const seen = await live.waitFor(updated(uris[0]));
    a.liveStreams.detach(sid, live);
    await b.fanout.resourceUpdated(uris[1]);
    // The entries of one shard gone (trimmed, or lost with its master): the others still there.
    const keys = new RedisKeys(prefix, 1, true, SHARDS);
    const gone = keys.log(keys.logShardOf(uris[1]));
    await cluster.command(await cluster.masterOf(gone), 'XTRIM', gone, 'MAXLEN', 0);

    const late = new FakeConnection();
    expect(await b.liveStreams.attach(sid, late, seen.eventId)).toBe(true);
    expect([...late.summary.slice(0, 2)].sort()).toEqual(
      uris
        .slice(0, 2)
        .map((uri) => `notifications/resources/updated ${uri}`)
        .sort(),
    );
    expect(late.summary.slice(2)).toEqual([
      'notifications/resources/list_changed',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ]);
  });
});
