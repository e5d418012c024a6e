/**
 * Instance leases across a pause of the heartbeats. While a Redis failover elects a replica
 * nobody can renew a lease, and the promoted replica finds them all ended: that must not make
 * an instance gone (its tasks failed as orphaned). An instance is gone once others have beaten
 * after its lease ended and it had a lease's time to beat too. The pause is staged by writing
 * the lease, the last beat and the grace directly, in Redis time.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { McpBackendParts } from '@nest-mcp/server/backend';
import { deploymentOf, type BackendDeployment } from '@nest-mcp/server/testing';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import type { RedisDelivery } from './redis-delivery.js';
import { RedisKeys } from './redis-keys.js';
import { RedisMcpBackend } from './redis.backend.js';

/** Long: no beat of its own comes between the steps of a test (each beats when it asks to). */
const HEARTBEAT_MS = 60_000;
const LEASE_MS = 3 * HEARTBEAT_MS;

let redis: TestRedis;
let deployment: BackendDeployment;
let parts: McpBackendParts;
let keys: RedisKeys;

beforeAll(async () => {
  redis = await startRedis();
  const keyPrefix = redis.prefix();
  keys = new RedisKeys(keyPrefix);
  deployment = deploymentOf(
    () => new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId: 'beater', heartbeatMs: HEARTBEAT_MS }),
  );
  parts = await deployment.instance();
});

afterAll(async () => {
  await deployment?.close();
  await redis?.stop();
});

/** Redis's clock (ms), the one leases are written on. */
async function redisNow(): Promise<number> {
  const [seconds, micros] = (await redis.command('TIME')) as [string, string];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

const gone = (id: string) => parts.messaging!.deadInstances!([id]);

describe('instance leases', () => {
  it('an ended lease is not gone while nobody has beaten since it ended, nor during a grace', async () => {
    const now = await redisNow();
    await redis.command('ZADD', keys.leases, now - 1_000, 'quiet');
    await redis.command('DEL', keys.leaseGrace);
    // The last beat before the pause came before the lease ended.
    await redis.command('SET', keys.lastBeat, now - 2_000);
    expect(await gone('quiet')).toEqual([]);

    // Others beat after it ended: gone, unless a grace runs.
    await redis.command('SET', keys.lastBeat, now);
    expect(await gone('quiet')).toEqual(['quiet']);
    await redis.command('SET', keys.leaseGrace, now + 60_000);
    expect(await gone('quiet')).toEqual([]);
  });

  it('the first beat after a pause longer than two heartbeats grants every lease one more', async () => {
    const now = await redisNow();
    await redis.command('ZADD', keys.leases, now - 1_000, 'quiet');
    await redis.command('DEL', keys.leaseGrace);
    await redis.command('SET', keys.lastBeat, now - 3 * HEARTBEAT_MS);

    await (parts.liveStreams as RedisDelivery).heartbeat();

    expect(Number(await redis.command('GET', keys.leaseGrace))).toBeGreaterThanOrEqual(now + LEASE_MS);
    expect(await gone('quiet')).toEqual([]);
    expect(await gone('beater')).toEqual([]);
  });

  it('a beat without a pause grants nothing: an instance that stopped beating is gone', async () => {
    const now = await redisNow();
    await redis.command('ZADD', keys.leases, now - 1_000, 'quiet');
    await redis.command('DEL', keys.leaseGrace);
    await redis.command('SET', keys.lastBeat, now);

    await (parts.liveStreams as RedisDelivery).heartbeat();

    expect(await redis.command('GET', keys.leaseGrace)).toBeNull();
    expect(await gone('quiet')).toEqual(['quiet']);
    expect(await gone('never-seen')).toEqual(['never-seen']);
  });
});
