import type { McpRequestStateNonces } from '@nest-mcp/server/backend';
import { guarded } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisClient } from './redis-scripts.js';

/**
 * Consumed request-state nonces in Redis: one `SET key 1 PX <ms> NX` per retry (one round trip,
 * atomic), so exactly one of the instances that see the same state accepts it. The key lives as
 * long as the state could still be presented, and Redis drops it then.
 */
export class RedisRequestStateNonces implements McpRequestStateNonces {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async consume(nonce: string, expiresAt: number): Promise<boolean> {
    // A state is presentable up to and including its expiry instant: kept one millisecond past it.
    const ttlMs = Math.max(1, Math.ceil(expiresAt - Date.now()) + 1);
    const set = await guarded(this.redis.set(this.keys.requestStateNonce(nonce), '1', 'PX', ttlMs, 'NX'));
    return set === 'OK';
  }
}
