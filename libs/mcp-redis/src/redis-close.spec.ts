/**
 * Closing an instance ends it at once, also when Redis is gone: nothing of it (a heartbeat, a
 * connection reconnecting for ever) outlives the close, which would keep the process (a test
 * run, a shutting-down server) from exiting. Runs on a `redis-server` of its own (it stops it).
 */
import { describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { sessionRecord } from '@nest-mcp/server/testing';
import { within } from '../../../test/support/http-wire.js';
import { redisDeployments } from '../../../test/support/redis-deployments.js';

const env = redisDeployments({ heartbeatMs: 200 });

describe('closing a Redis instance', () => {
  it('ends at once when Redis is gone, with commands still waiting for it', async () => {
    const [parts] = await env.instances(1);
    await env.redis.stop();
    // Commands that wait for a reconnect: a QUIT would queue behind them.
    const waiting = [parts.sessions.create(sessionRecord(), 100), parts.subscriptions.subscribe('s', 'mem://a', 10)];
    for (const command of waiting) command.catch(() => undefined);
    await within(parts.close!(), 5_000, 'the close of an instance whose Redis is gone');
    // Neither connection has a reconnect scheduled (its timer would keep the process alive,
    // trying a server that is gone, for ever).
    const { subscriber, publisher } = parts.messaging as unknown as Record<'subscriber' | 'publisher', Redis>;
    const scheduled = (client: Redis) => (client as unknown as { reconnectTimeout?: unknown }).reconnectTimeout ?? null;
    expect([scheduled(subscriber), scheduled(publisher)]).toEqual([null, null]);
  });
});
