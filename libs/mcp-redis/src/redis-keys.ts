/**
 * Key and channel names, all under one prefix (default `mcp:`), laid out for Redis Cluster
 * slots: every script works in one slot (see docs/several-instances.md, "Redis Cluster").
 *
 * Sessions live in buckets: a session's keys and its bucket's keys share the hash tag `{b<n>}`
 * (`n` from the session id, one of `sessionBuckets`), so that every session script (its record,
 * the bucket's activity index, counters) runs in one slot, and the sessions of a deployment
 * spread over as many slots as there are buckets:
 *
 * | Key | Type | Content |
 * |---|---|---|
 * | `s:{b<n>}:<sid>` | HASH + TTL | `rec` (the record as JSON), `p:<field>` (patched facts as JSON), `ep` (outbox epoch), `seq` (outbox sequence), `holder` (`<instance> <token>` of the live standalone stream), `hl` (until when, in Redis time, its holder proved it lives), `posts` |
 * | `s:{b<n>}:<sid>:subs` | SET + TTL | subscribed URIs |
 * | `s:{b<n>}:<sid>:out` | STREAM + TTL | the outbox, messages for this session alone: entry `<seq>-0`, fields `j` = JSON, `l` = the log's head as its writer knew it |
 * | `s:{b<n>}:<sid>:rs`, `…:r:<id>`, `…:rm:<id>` | ZSET, STREAM, HASH | POST-stream logs (event id `p:<id>:<seq>`) and their owner |
 * | `s:{b<n>}:<sid>:rl` | HASH | the session's rate-limit window |
 * | `x:{b<n>}` | ZSET | sid → last activity, the bucket's sessions (the sweep's index and the count) |
 * | `sc:{b<n>}` | STRING | (session, URI) pairs of the bucket's sessions |
 * | `e:{b<n>}` | LIST | ends whose work outside the bucket (URI audiences, list audience, session cap, the `end` message) is not done yet |
 * | `sessions` | STRING | sessions created and not ended: the cap of `sessions.max` (touched on create and end only) |
 * | `{ev}` | STREAM, `MAXLEN ~` | the notification log: entry `<n>-0`, fields `k` (`u` updated, `l` list changed), `x` (URI or list kind), `j` = JSON |
 * | `{ev}:n` | STRING | the log's counter (`n` of its last entry) |
 * | `sub:<uri>` | SET | sids subscribed to the URI (the audience's size) |
 * | `streamed` | SET | sids that held a stream (the audience of list changes) |
 * | `{t}:…` | | the task store (see lua/tasks.lua.ts) and `{t}:inst:<id>` (STRING + TTL: an instance's liveness), in one slot |
 * | `rl:<key>` | HASH + TTL | rate-limit window of a caller without a session |
 * | `rsn:<nonce>` | STRING + TTL | a consumed MRTR request-state nonce, until its state expires |
 * | channel `{ev}:bus` | PUB/SUB | notifications (with their log sequence), session ends, broadcasts |
 * | channel `to:{b<n>}:<id>` | PUB/SUB | messages for one instance about the sessions of one bucket: outbox entries, (un)subscriptions and replacements of the streams it holds, POST-stream events; `to:{b0}:<id>` also routed answers |
 *
 * On a cluster the channels are sharded (SSUBSCRIBE/SPUBLISH): a message reaches only the shard
 * that serves its channel's slot, and the instances listening there.
 *
 * A GET-stream event id is `g:<ep>-<out>:<log>`: the outbox sequence and the log sequence
 * written so far on that stream, the same on every instance.
 */
export class RedisKeys {
  constructor(
    readonly prefix: string,
    /** How many buckets the sessions are spread over (1 on a single Redis). */
    readonly buckets: number = 1,
  ) {
    if (/[{}]/.test(prefix)) throw new Error(`keyPrefix '${prefix}' must not contain '{' or '}' (they make hash tags)`);
    if (!(Number.isSafeInteger(buckets) && buckets >= 1 && buckets <= 16_384)) {
      throw new Error(`sessionBuckets must be an integer from 1 to 16384, got ${String(buckets)}`);
    }
  }

  /** The hash tag of a session's bucket (`b<n>`, FNV-1a of the id). */
  bucketOf(sid: string): string {
    if (this.buckets === 1) return 'b0';
    let hash = 0x811c9dc5;
    for (let i = 0; i < sid.length; i++) {
      hash ^= sid.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return `b${hash % this.buckets}`;
  }

  /** Every bucket's tag. */
  allBuckets(): string[] {
    return Array.from({ length: this.buckets }, (_, n) => `b${n}`);
  }

  /** The activity index of a bucket: the key every session script names first (its slot). */
  bucket(tag: string): string {
    return `${this.prefix}x:{${tag}}`;
  }

  /** The bucket key of a session's bucket. */
  bucketOfSession(sid: string): string {
    return this.bucket(this.bucketOf(sid));
  }

  session(sid: string): string {
    return `${this.prefix}s:{${this.bucketOf(sid)}}:${sid}`;
  }

  outbox(sid: string): string {
    return `${this.session(sid)}:out`;
  }

  subscriptions(sid: string): string {
    return `${this.session(sid)}:subs`;
  }

  postLog(sid: string, streamId: string): string {
    return `${this.session(sid)}:r:${streamId}`;
  }

  /** A bucket's count of (session, URI) pairs. */
  subscriptionCount(tag: string): string {
    return `${this.prefix}sc:{${tag}}`;
  }

  /** A bucket's ends whose work outside the bucket is pending. */
  pendingEnds(tag: string): string {
    return `${this.prefix}e:{${tag}}`;
  }

  /** Sessions created and not ended (the cap). */
  get sessionCount(): string {
    return `${this.prefix}sessions`;
  }

  /** The notification log (a stream shared by every session). */
  get log(): string {
    return `${this.prefix}{ev}`;
  }

  /** The notification log's counter (same slot as the log). */
  get logHead(): string {
    return `${this.prefix}{ev}:n`;
  }

  subscribers(uri: string): string {
    return `${this.prefix}sub:${uri}`;
  }

  get streamed(): string {
    return `${this.prefix}streamed`;
  }

  /** The anchor key of the task store's slot (every task script names it). */
  get tasks(): string {
    return `${this.prefix}{t}`;
  }

  /** The liveness key of an instance, kept by its heartbeat (in the task store's slot). */
  instance(instanceId: string): string {
    return `${this.prefix}{t}:inst:${instanceId}`;
  }

  /** A consumed MRTR request-state nonce (the replay guard). */
  requestStateNonce(nonce: string): string {
    return `${this.prefix}rsn:${nonce}`;
  }

  /** A rate-limit window of a caller without a session. */
  rateWindow(key: string): string {
    return `${this.prefix}rl:${key}`;
  }

  /** The channel every instance listens to (in the log's slot: the fan-out script publishes on it). */
  get bus(): string {
    return `${this.prefix}{ev}:bus`;
  }

  /**
   * A channel of one instance: one per bucket, in the bucket's slot, so that a session script
   * publishes to the instance holding the session's stream on a channel of its own slot (as a
   * sharded channel must be). Messages that no script sends go to the first bucket's.
   */
  direct(instanceId: string, tag = 'b0'): string {
    return `${this.prefix}to:{${tag}}:${instanceId}`;
  }

  /** Every channel of one instance. */
  directChannels(instanceId: string): string[] {
    return this.allBuckets().map((tag) => this.direct(instanceId, tag));
  }
}

/** Sessions grouped by bucket, in the order first met: one script call per bucket (its slot). */
export function byBucket<T>(keys: RedisKeys, items: readonly T[], sidOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const tag = keys.bucketOf(sidOf(item));
    let group = groups.get(tag);
    if (!group) groups.set(tag, (group = []));
    group.push(item);
  }
  return groups;
}
