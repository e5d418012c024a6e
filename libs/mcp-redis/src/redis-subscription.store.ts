import type { Redis } from 'ioredis';
import type { McpSubscriptionStore } from '@nest-mcp/server/backend';
import { guarded } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisScripts } from './redis-scripts.js';

/**
 * Subscriptions in Redis: a set of URIs per session and a set of sessions per URI, written
 * together by one script that first checks the session lives (a subscribe racing a DELETE is
 * refused, never stored) and its cap. The session's end removes both sides.
 */
export class RedisSubscriptionStore implements McpSubscriptionStore {
  constructor(
    private readonly scripts: RedisScripts,
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async subscribe(sessionId: string, uri: string, limit?: number): Promise<boolean | 'full'> {
    const stored = await this.scripts.run<number>('mcpSubscribe', sessionId, uri, limit ?? '');
    return stored === 2 ? 'full' : stored === 1;
  }

  async unsubscribe(sessionId: string, uri: string): Promise<void> {
    await this.scripts.run('mcpUnsubscribe', sessionId, uri);
  }

  subscribersOf(uri: string): Promise<Iterable<string>> {
    return guarded(this.redis.smembers(this.keys.subscribers(uri)));
  }

  subscriptionsOf(sessionId: string): Promise<readonly string[]> {
    return guarded(this.redis.smembers(this.keys.subscriptions(sessionId)));
  }

  async count(): Promise<number> {
    return Math.max(0, Number((await guarded(this.redis.get(this.keys.subscriptionCount))) ?? 0));
  }
}
