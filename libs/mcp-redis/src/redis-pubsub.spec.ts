/**
 * The subscriber connection across outages: an instance that started while Redis was down
 * subscribes once Redis is up (its first subscribe failed, and nothing else would retry it).
 * Runs on a `redis-server` of its own (it is stopped and started again).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { deploymentOf, type BackendDeployment } from '@nest-mcp/server/testing';
import { MCP_ALL_INSTANCES } from '@nest-mcp/server/backend';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { RedisMcpBackend } from './redis.backend.js';

let redis: TestRedis;
let deployment: BackendDeployment | undefined;

beforeAll(async () => {
  redis = await startRedis({ own: true });
}, 30_000);

afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

afterAll(async () => {
  await redis?.stop();
});

describe('Redis pub/sub', () => {
  it('subscribes once Redis is up when the instance started while it was down, and hears the bus', async () => {
    const prefix = redis.prefix();
    let n = 0;
    deployment = deploymentOf(
      () => new RedisMcpBackend({ url: redis.url, keyPrefix: prefix, instanceId: `i${++n}`, heartbeatMs: 200 }),
    );
    await redis.stop();
    // Starts anyway (an outage at startup answers 503 until Redis is back); its subscribe failed.
    const a = await deployment.instance();
    await redis.restart();
    const b = await deployment.instance();

    const heard: unknown[] = [];
    a.messaging!.on('ping', (payload) => heard.push(payload));
    // A subscribes when its connection is ready again: until then B's messages are lost, as
    // pub/sub messages are; one per 50 ms until A hears one, for at most 10 s.
    const deadline = Date.now() + 10_000;
    for (let sent = 1; heard.length === 0; sent++) {
      expect(Date.now()).toBeLessThan(deadline);
      b.messaging!.send(MCP_ALL_INSTANCES, 'ping', sent);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(heard[0]).toEqual(expect.any(Number));
  }, 30_000);
});
