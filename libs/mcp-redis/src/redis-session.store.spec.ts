/** The session lookup on Redis: one script per turn, its record decoded once, its TTL slid with slack. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { McpBackendParts } from '@nest-mcp/server/backend';
import { deploymentOf, sessionRecord, type BackendDeployment } from '@nest-mcp/server/testing';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { ACCESS } from './lua/session.lua.js';
import { preludeFor } from './lua/prelude.lua.js';
import { RedisMcpBackend } from './redis.backend.js';

/** The module's default idle timeout (30 min) gives the keys a TTL of one hour. */
const TTL_MS = 60 * 60_000;

describe('RedisSessionStore.access', () => {
  let redis: TestRedis;
  let keyPrefix: string;
  let deployment: BackendDeployment;
  let a: McpBackendParts;
  let b: McpBackendParts;

  const sessionKey = (id: string) => `${keyPrefix}s:{b0}:${id}`;
  const pttl = async (id: string) => Number(await redis.command('PTTL', sessionKey(id)));

  beforeAll(async () => {
    redis = await startRedis();
    keyPrefix = redis.prefix();
    let n = 0;
    deployment = deploymentOf(() => new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId: `s${++n}` }));
    a = await deployment.instance();
    b = await deployment.instance();
  }, 30_000);

  afterAll(async () => {
    await deployment?.close();
    await redis?.stop();
  });

  it('decodes the stored record once: later lookups reuse it, with the patches of any instance over it', async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 100);
    const first = await a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY);
    expect(first).toMatchObject({ id: session.id, clientInfo: session.clientInfo });

    // The stored record turned unreadable: only a lookup that parsed it again would notice.
    await redis.command('HSET', sessionKey(session.id), 'rec', '{not json');
    expect(await b.sessions.update(session.id, { logLevel: 'debug' })).toBe(true);
    const later = await a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY);
    expect(later).toMatchObject({ id: session.id, clientInfo: session.clientInfo, logLevel: 'debug' });
  });

  it('hands each lookup a record of its own, rebuilt only when a patch changed, with the lookup time as its activity', async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 100);
    expect(await b.sessions.update(session.id, { logLevel: 'debug' })).toBe(true);
    const first = (await a.sessions.access(session.id, 1_000, Number.POSITIVE_INFINITY)) as unknown as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({ id: session.id, logLevel: 'debug', lastActivityAt: 1_000 });

    // What a caller does to its copy reaches neither the store's nor the next caller's.
    first.logLevel = 'error';
    first.extra = true;
    const second = (await a.sessions.access(session.id, 2_000, Number.POSITIVE_INFINITY)) as unknown as Record<
      string,
      unknown
    >;
    expect(second).not.toBe(first);
    expect(second).toMatchObject({ id: session.id, logLevel: 'debug', lastActivityAt: 2_000 });
    expect(second).not.toHaveProperty('extra');

    // The same patch field with another value, and a new one: both seen at the next lookup.
    expect(await b.sessions.update(session.id, { logLevel: 'info' })).toBe(true);
    expect(await b.sessions.update(session.id, { initialized: true })).toBe(true);
    const third = await a.sessions.access(session.id, 3_000, Number.POSITIVE_INFINITY);
    expect(third).toMatchObject({ id: session.id, logLevel: 'info', initialized: true, lastActivityAt: 3_000 });
    expect(third?.clientInfo).toEqual(session.clientInfo);
  });

  it('answers unknown once the session ended on another instance, whatever it had decoded', async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 100);
    expect(await a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY)).toBeDefined();
    await b.sessions.end(session.id, 'deleted');
    expect(await a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('slides the TTL of the session keys once less than half of it is left, not on every request', async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 100);
    expect(await pttl(session.id)).toBeGreaterThan(TTL_MS * 0.9);

    // Most of the TTL left: the lookup leaves the keys' expiry alone.
    await redis.command('PEXPIRE', sessionKey(session.id), TTL_MS * 0.8);
    await a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY);
    expect(await pttl(session.id)).toBeLessThanOrEqual(TTL_MS * 0.8);

    // Less than half left (the recorded expiry says so too): the next lookup restores all of it.
    const soon = Date.now() + TTL_MS * 0.4;
    await redis.command('PEXPIRE', sessionKey(session.id), TTL_MS * 0.4);
    await redis.command('HSET', sessionKey(session.id), 'xp', soon);
    await a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY);
    expect(await pttl(session.id)).toBeGreaterThan(TTL_MS * 0.9);
  });

  it('a touch (a request in flight, which makes no lookup) slides the TTL of the session keys as a lookup does', async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 100);
    const soon = Date.now() + TTL_MS * 0.4;
    await redis.command('PEXPIRE', sessionKey(session.id), TTL_MS * 0.4);
    await redis.command('HSET', sessionKey(session.id), 'xp', soon);
    const now = Date.now();
    await b.sessions.touch([session.id], now);
    expect(await pttl(session.id)).toBeGreaterThan(TTL_MS * 0.9);
    expect(Number(await redis.command('ZSCORE', `${keyPrefix}x:{b0}`, session.id))).toBe(now);
    // An ended session stays ended: a touch creates nothing.
    await a.sessions.end(session.id, 'deleted');
    await b.sessions.touch([session.id], Date.now());
    expect(Number(await redis.command('EXISTS', sessionKey(session.id)))).toBe(0);
    expect(await redis.command('ZSCORE', `${keyPrefix}x:{b0}`, session.id)).toBeNull();
  });

  it('answers a lookup with the hash fields the store reads only: the holder, the patches, and the record unless held', async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 100);
    expect(await a.sessions.update(session.id, { logLevel: 'debug' })).toBe(true);
    await redis.command('HSET', sessionKey(session.id), 'holder', 'elsewhere 1', 'hl', Date.now() + 60_000);
    const access = (holdsRecord: 0 | 1) =>
      redis.command(
        'EVAL',
        preludeFor(false) + ACCESS,
        1,
        `${keyPrefix}x:{b0}`,
        keyPrefix,
        'spec',
        TTL_MS,
        session.id,
        Date.now(),
        -1,
        holdsRecord,
        '',
      ) as Promise<string[][]>;
    const names = (reply: string[]) => reply.filter((_, i) => i % 2 === 0).sort();
    // No `ep`, `seq`, `xp`, `pd` or `hl`: bytes Redis would write and ioredis decode on every request.
    expect(names((await access(1))[0])).toEqual(['holder', 'p:logLevel']);
    expect(names((await access(0))[0])).toEqual(['holder', 'p:logLevel', 'rec']);
    // What the store makes of it: the record, the patch, and the stream held by another instance.
    expect(await b.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY)).toMatchObject({
      id: session.id,
      clientInfo: session.clientInfo,
      logLevel: 'debug',
    });
  });

  it('answers every lookup of one turn from one batch: each caller its own record, the unknown and the idle apart', async () => {
    const [busy, other, idle] = [sessionRecord(), sessionRecord(), sessionRecord()];
    for (const session of [busy, other, idle]) await a.sessions.create(session, 100);
    expect(await b.sessions.access(busy.id, Date.now(), Number.POSITIVE_INFINITY)).toBeDefined(); // b holds busy's record
    await redis.command('ZADD', `${keyPrefix}x:{b0}`, Date.now() - 60_000, idle.id);
    const ended: string[] = [];
    b.sessions.onEnded((id) => void ended.push(id));

    const now = Date.now();
    const [first, second, third, unknown, expired] = await Promise.all([
      b.sessions.access(busy.id, now, 30_000),
      b.sessions.access(busy.id, now, 30_000),
      b.sessions.access(other.id, now, 30_000),
      b.sessions.access('no-such-session', now, 30_000),
      b.sessions.access(idle.id, now, 30_000),
    ]);
    expect(first).toMatchObject({ id: busy.id, clientInfo: busy.clientInfo, lastActivityAt: now });
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(third).toMatchObject({ id: other.id, clientInfo: other.clientInfo });
    expect(unknown).toBeUndefined();
    expect(expired).toBeUndefined();
    expect(ended).toEqual([idle.id]);
    expect(await redis.command('ZSCORE', `${keyPrefix}x:{b0}`, busy.id)).toBe(String(now));
  });

  it('fails every lookup of a turn whose batch Redis could not run, and serves the next turn', async () => {
    const session = sessionRecord();
    await a.sessions.create(session, 100);
    await redis.command('HSET', sessionKey(session.id), 'xp', 'not a number');
    const failed = await Promise.allSettled([
      a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY),
      a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY),
    ]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await redis.command('HSET', sessionKey(session.id), 'xp', Date.now() + TTL_MS);
    expect(await a.sessions.access(session.id, Date.now(), Number.POSITIVE_INFINITY)).toMatchObject({ id: session.id });
  });
});
