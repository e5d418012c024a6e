/**
 * An end's work outside its session's bucket (the URI audiences, the list audience, the cap's
 * place, the end message) is queued with the end in the bucket: when the instance that ended the
 * session dies before doing it, the next sweep of any instance does it, and gives the cap's
 * place back once.
 */
import { describe, expect, it } from '@jest/globals';
import { sessionRecord } from '@nest-mcp/server/testing';
import { redisDeployments } from '../../../test/support/redis-deployments.js';

const env = redisDeployments({ heartbeatMs: 60_000 });

describe('Redis: ends left unfinished by their instance', () => {
  it('are finished by the next sweep: audiences, the cap and the end message', async () => {
    const [a, b] = await env.instances(2);
    const heard: [string, string][] = [];
    b.sessions.onEnded((sid, reason) => void heard.push([sid, reason]));
    const session = sessionRecord();
    expect(await a.sessions.create(session, 1)).toBe(true);
    expect(await a.subscriptions.subscribe(session.id, 'db://a')).toBe(true);
    // The end script's own step, as an instance that died right after it would leave it: the
    // session gone from its bucket, its pending end queued, nothing else done.
    const s = `${env.prefix}s:{b0}:${session.id}`;
    const entry = JSON.stringify({ sid: session.id, reason: 'deleted', uris: ['db://a'], from: 'gone' });
    await env.raw
      .multi()
      .del(s, `${s}:subs`)
      .zrem(`${env.prefix}x:{b0}`, session.id)
      .decr(`${env.prefix}sc:{b0}`)
      .rpush(`${env.prefix}e:{b0}`, entry)
      .exec();
    expect(await a.sessions.create(sessionRecord(), 1)).toBe(false);
    expect((await a.fanout.resourceUpdated('db://a')).sessions).toBe(1);

    await b.sessions.expireIdle(0);

    expect(await env.raw.llen(`${env.prefix}e:{b0}`)).toBe(0);
    expect((await a.fanout.resourceUpdated('db://a')).sessions).toBe(0);
    expect([...(await a.subscriptions.subscribersOf('db://a'))]).toEqual([]);
    expect(heard).toEqual([[session.id, 'deleted']]);
    expect(await a.sessions.create(sessionRecord(), 1)).toBe(true);
    // Finished once: another sweep gives no second place back (two sessions fill a cap of two).
    await a.sessions.expireIdle(0);
    expect(await a.sessions.create(sessionRecord(), 2)).toBe(true);
    expect(await a.sessions.create(sessionRecord(), 2)).toBe(false);
  });
});
