import type { McpSubscriptionStore } from '@nest-mcp/server/backend';
import { guarded } from './redis-errors.js';
import { sessionScriptKeys, type RedisKeys } from './redis-keys.js';
import type { RedisClient, RedisScripts } from './redis-scripts.js';

/**
 * Subscriptions in Redis: a set of URIs per session (in its bucket, written by one script that
 * first checks the session lives, a subscribe racing a DELETE being refused, and its cap) and a
 * set of sessions per URI (`sub:<uri>`, in the URI's own slot: the audience of its updates).
 *
 * The URI's set is written around the script, never by it (another slot): the session is added
 * before the script and taken out again when the script stored nothing, and removed after an
 * unsubscribe; a session's end removes it through its pending end. So the URI's set never misses
 * a stored subscription, whatever order the steps of a subscribe and an end meet in.
 */
export class RedisSubscriptionStore implements McpSubscriptionStore {
  constructor(
    private readonly scripts: RedisScripts,
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** The head of a URI's log shard as this instance knows it, on a cluster (see the subscribe script); undefined on one Redis. */
    private readonly knownHead?: (uri: string) => number,
  ) {}

  async subscribe(sessionId: string, uri: string, limit?: number): Promise<boolean | 'full'> {
    const audience = this.keys.subscribers(uri);
    const added = await guarded(this.redis.sadd(audience, sessionId));
    let stored: number;
    try {
      stored = await this.scripts.run<number>(
        'mcpSubscribe',
        this.sessionKeys(sessionId),
        sessionId,
        uri,
        limit ?? '',
        this.knownHead?.(uri) ?? '',
      );
    } catch (error) {
      if (added === 1) this.redis.srem(audience, sessionId).catch(() => undefined);
      throw error;
    }
    if (stored !== 1 && added === 1) await guarded(this.redis.srem(audience, sessionId));
    return stored === 2 ? 'full' : stored === 1;
  }

  async unsubscribe(sessionId: string, uri: string): Promise<void> {
    const removed = await this.scripts.run<number>('mcpUnsubscribe', this.sessionKeys(sessionId), sessionId, uri);
    if (removed === 1) await guarded(this.redis.srem(this.keys.subscribers(uri), sessionId));
  }

  subscribersOf(uri: string): Promise<Iterable<string>> {
    return guarded(this.redis.smembers(this.keys.subscribers(uri)));
  }

  subscriptionsOf(sessionId: string): Promise<readonly string[]> {
    return guarded(this.redis.smembers(this.keys.subscriptions(sessionId)));
  }

  /** The pairs of every bucket (one GET per bucket, in parallel). */
  async count(): Promise<number> {
    const tags = this.keys.allBuckets();
    const counts = await guarded(Promise.all(tags.map((tag) => this.redis.get(this.keys.subscriptionCount(tag)))));
    return Math.max(
      0,
      counts.reduce((sum, count) => sum + Number(count ?? 0), 0),
    );
  }

  /** Every key the (un)subscribe scripts touch (see sessionScriptKeys). */
  private sessionKeys(sessionId: string): string[] {
    return sessionScriptKeys(this.keys, this.keys.bucketOf(sessionId), [sessionId], ['hash', 'subs'], ['sc']);
  }
}
