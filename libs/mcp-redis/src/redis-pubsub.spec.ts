/**
 * An instance's two connections: named after it in CLIENT LIST, and the subscriber across
 * outages (an instance that started while Redis was down subscribes once Redis is up: its first
 * subscribe failed, and nothing else would retry it). Runs on a `redis-server` of its own (it is
 * stopped and started again).
 */
import { describe, expect, it } from '@jest/globals';
import { MCP_ALL_INSTANCES } from '@nest-mcp/server/backend';
import { redisDeployments } from '../../../test/support/redis-deployments.js';

const env = redisDeployments({ heartbeatMs: 200 });

/**
 * The names starting with `prefix` of the connections of `type` in CLIENT LIST, sorted (a
 * connection that quit may be listed a moment longer: only the deployment under test counts).
 */
async function clientNames(type: 'normal' | 'pubsub', prefix: string): Promise<string[]> {
  const list = String(await env.raw.call('CLIENT', 'LIST', 'TYPE', type));
  return [...list.matchAll(/ name=(\S*)/g)]
    .map((match) => match[1])
    .filter((name) => name.startsWith(prefix))
    .sort();
}

describe('Redis connections', () => {
  it('names the command connection and the subscriber after the instance, or after redis.connectionName', async () => {
    await env.instances(2);
    expect(await clientNames('pubsub', 'nest-mcp:')).toEqual(['nest-mcp:i1:sub', 'nest-mcp:i2:sub']);
    expect(await clientNames('normal', 'nest-mcp:')).toEqual(['nest-mcp:i1', 'nest-mcp:i2']);

    await env.instances(1, { redis: { connectionName: 'orders-mcp' } });
    expect(await clientNames('pubsub', 'orders-mcp')).toEqual(['orders-mcp:sub']);
    expect(await clientNames('normal', 'orders-mcp')).toEqual(['orders-mcp']);
  });

  it('subscribes once Redis is up when the instance started while it was down, and hears the bus', async () => {
    await env.redis.stop();
    // Starts anyway (an outage at startup answers 503 until Redis is back); its subscribe failed.
    const [a] = await env.instances(1);
    await env.redis.restart();
    const b = await env.addInstance();

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
