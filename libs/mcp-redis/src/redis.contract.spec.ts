/**
 * The Redis backend against the backend contract, on a real Redis (`REDIS_URL`, or a
 * `redis-server` of this file's own), plain and behind latency. Instances of one deployment are
 * separate backends (own connections, own instance id) sharing one key prefix.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { describeBackendContract, deploymentOf, FaultyMcpBackend } from '@nest-mcp/server/testing';
import type { McpBackend } from '@nest-mcp/server/backend';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { RedisMcpBackend } from './redis.backend.js';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  await redis?.stop();
});

const deployment = (wrap: (backend: McpBackend) => McpBackend = (backend) => backend) => ({
  shared: true,
  deploy: async () => {
    const keyPrefix = redis.prefix();
    let instances = 0;
    return deploymentOf(() =>
      wrap(new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId: `i${++instances}`, heartbeatMs: 200 })),
    );
  },
});

describeBackendContract('Redis', deployment());

describeBackendContract(
  'Redis behind 2 ms of latency per call',
  deployment((backend) => {
    const slow = new FaultyMcpBackend(backend);
    slow.faults.latencyMs = 2;
    return slow;
  }),
);
