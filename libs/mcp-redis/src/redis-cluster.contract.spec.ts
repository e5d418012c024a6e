/**
 * The Redis backend against the backend contract (the task store's included) on a Redis
 * Cluster: three masters with a replica each, started by this file (test/support/redis-cluster).
 * Instances of one deployment are separate backends (own connections, own instance id) sharing
 * one key prefix; the sessions are spread over the default number of buckets, so one test's
 * sessions land on several masters. Then the calls a task operation takes on a cluster, where
 * its scripts declare every key they touch.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  describeBackendContract,
  deploymentOf,
  taskLimits,
  taskRecord,
  type BackendDeployment,
} from '@nest-mcp/server/testing';
import { startCluster, type TestCluster } from '../../../test/support/redis-cluster.mjs';
import { McpBackendUnavailableError } from '@nest-mcp/server/backend';
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

describeBackendContract('Redis Cluster', { shared: true, deploy });

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
