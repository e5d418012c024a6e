/**
 * The Redis backend against the backend contract (the task store's included) on a Redis
 * Cluster: three masters with a replica each, started by this file (test/support/redis-cluster).
 * Instances of one deployment are separate backends (own connections, own instance id) sharing
 * one key prefix; the sessions are spread over the default number of buckets, so one test's
 * sessions land on several masters.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { describeBackendContract, deploymentOf } from '@nest-mcp/server/testing';
import { startCluster, type TestCluster } from '../../../test/support/redis-cluster.mjs';
import { RedisMcpBackend } from './redis.backend.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describeBackendContract('Redis Cluster', {
  shared: true,
  deploy: async () => {
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
  },
});
