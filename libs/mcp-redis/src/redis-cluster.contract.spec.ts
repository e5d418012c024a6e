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
import { RedisScripts } from './redis-scripts.js';
import { RedisMcpBackend } from './redis.backend.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

async function deploy(): Promise<BackendDeployment> {
  const keyPrefix = cluster.prefix();
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

describe('Redis Cluster: the calls of a task operation', () => {
  it("a poll is one call on any instance; an end on an instance that did not create the task asks once for its caller's accounts", async () => {
    const deployment = await deploy();
    const run = jest.spyOn(RedisScripts.prototype, 'run');
    try {
      const a = await deployment.instance();
      const b = await deployment.instance();
      const [mine, theirs] = [taskRecord({ instanceId: 'i1' }), taskRecord({ instanceId: 'i1' })];
      expect(await a.tasks!.create(mine, taskLimits())).toBe(true);
      expect(await a.tasks!.create(theirs, taskLimits())).toBe(true);
      const callsOf = async (work: () => Promise<unknown>): Promise<number> => {
        run.mockClear();
        await work();
        return run.mock.calls.filter(([name]) => String(name).startsWith('mcpTask')).length;
      };
      expect(await callsOf(() => a.tasks!.get(mine.taskId))).toBe(1);
      expect(await callsOf(() => b.tasks!.get(mine.taskId))).toBe(1);
      // The creating instance knows the caller's accounts its end touches.
      expect(await callsOf(() => a.tasks!.settle(mine.taskId, { status: 'completed', result: {} }, Date.now()))).toBe(
        1,
      );
      // Another asks for them first: one more call.
      expect(await callsOf(() => b.tasks!.settle(theirs.taskId, { status: 'cancelled' }, Date.now()))).toBe(2);
      expect((await b.tasks!.get(theirs.taskId))?.status).toBe('cancelled');
    } finally {
      run.mockRestore();
      await deployment.close();
    }
  });
});
