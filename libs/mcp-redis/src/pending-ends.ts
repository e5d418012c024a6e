import { describeError, guarded } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisClient } from './redis-scripts.js';
import type { RedisPubSub } from './redis-pubsub.js';
import { McpLogger } from '@nest-mcp/server/backend';

/** Pending ends read at once, and batches one drain of a bucket takes at most (the next sweep takes the rest). */
const DRAIN_BATCH = 100;
const MAX_DRAIN_BATCHES = 100;

/** A session's end as its bucket queued it: what remains to do outside the bucket. */
interface PendingEnd {
  readonly sid: string;
  readonly reason: string;
  /** Its URIs; Lua encodes an empty list as `{}`. */
  readonly uris: string[] | Record<string, never>;
  readonly from: string;
}

/**
 * The part of a session's end that lies outside its bucket's slot: its sid leaves the audience
 * set of each URI it subscribed to and the list-change audience, its place under the session
 * cap is given back, and every instance is told (`end` on the bus). The end script queued that
 * work in the bucket in the same step as the end (`e:{b<n>}`); the instance that ended the
 * session does it at once, or, when that one died or lost Redis in between, the next sweep of
 * any instance.
 */
export class PendingEnds {
  private readonly logger = new McpLogger('McpRedis');

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly pubsub: RedisPubSub,
  ) {}

  /**
   * Does one end's pending work. What may be done twice is done first (the audiences, the end
   * message: an instance announces an end once however often it hears it); then the entry is
   * taken off the queue, and whoever took it gives the cap's place back, once. Failing before
   * that, the entry stays queued and the next sweep does it all again.
   */
  async finish(tag: string, entry: string): Promise<void> {
    const { sid, reason, uris, from } = JSON.parse(entry) as PendingEnd;
    const work: Promise<unknown>[] = [
      this.redis.srem(this.keys.streamed, sid),
      this.pubsub.publish(this.keys.bus, JSON.stringify({ t: 'end', sid, reason, from })),
    ];
    if (Array.isArray(uris)) for (const uri of uris) work.push(this.redis.srem(this.keys.subscribers(uri), sid));
    await guarded(Promise.all(work));
    const claimed = await guarded(this.redis.lrem(this.keys.pendingEnds(tag), 1, entry));
    if (claimed === 1) await guarded(this.redis.decr(this.keys.sessionCount));
  }

  /** Finishes what a bucket still has queued (ends whose instance did not get to it). */
  async drain(tag: string): Promise<void> {
    for (let batch = 0; batch < MAX_DRAIN_BATCHES; batch++) {
      const entries = await guarded(this.redis.lrange(this.keys.pendingEnds(tag), 0, DRAIN_BATCH - 1));
      await Promise.all(entries.map((entry) => this.finish(tag, entry)));
      if (entries.length < DRAIN_BATCH) return;
    }
  }

  /** Logs work that failed; it stays queued (or is done already) and the next sweep takes it. */
  failed(error: unknown): void {
    this.logger.warn(`Could not finish ended sessions (the next sweep will): ${describeError(error)}`);
  }
}
