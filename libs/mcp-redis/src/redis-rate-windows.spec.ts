/** Rate windows in Redis: shared by instances, counted atomically, never re-created after a session's end. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { McpBackendParts } from '@nest-mcp/server/backend';
import { deploymentOf, sessionRecord, type BackendDeployment } from '@nest-mcp/server/testing';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { RedisMcpBackend } from './redis.backend.js';

describe('RedisRateWindows', () => {
  let redis: TestRedis;
  let deployment: BackendDeployment;
  let a: McpBackendParts;
  let b: McpBackendParts;

  beforeAll(async () => {
    redis = await startRedis();
    const keyPrefix = redis.prefix();
    let n = 0;
    deployment = deploymentOf(() => new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId: `w${++n}` }));
    a = await deployment.instance();
    b = await deployment.instance();
  }, 30_000);

  afterAll(async () => {
    await deployment?.close();
    await redis?.stop();
  });

  it('counts the hits of one key on every instance in one window, then starts a new one', async () => {
    const now = 1_000_000;
    expect(await a.rateWindows!.hit('a:10.0.0.1', 1_000, now)).toEqual({ count: 1, start: now });
    expect(await b.rateWindows!.hit('a:10.0.0.1', 1_000, now + 10)).toEqual({ count: 2, start: now });
    expect(await Promise.all([1, 2, 3].map(() => a.rateWindows!.hit('a:10.0.0.1', 1_000, now + 20)))).toEqual(
      expect.arrayContaining([{ count: 5, start: now }]),
    );
    expect(await b.rateWindows!.hit('a:10.0.0.1', 1_000, now + 1_000)).toEqual({ count: 1, start: now + 1_000 });
  });

  it("keeps a session's window with the session, and never re-creates it after the end", async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 10);
    const now = Date.now();
    expect((await a.rateWindows!.hit(`s:${session.id}`, 60_000, now)).count).toBe(1);
    expect((await b.rateWindows!.hit(`s:${session.id}`, 60_000, now)).count).toBe(2);
    await b.sessions.end(session.id, 'deleted');

    expect((await a.rateWindows!.hit(`s:${session.id}`, 60_000, now)).count).toBe(0);
  });
});
