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
 * | `{ev}`, `{ev<k>}` | STREAM, `MAXLEN ~` | the notification log, one stream per log shard (`{ev}` is shard 0, the only one on a single Redis; `k` from 1 to `notificationLogShards` - 1): entry `<n>-0`, fields `k` (`u` updated, `l` list changed), `x` (URI or list kind, which picks the shard), `j` = JSON, `o` (the writer's stamp: a resume merges the shards in its order) |
 * | `{ev}:n`, `{ev<k>}:n` | STRING | a log shard's counter (`n` of its last entry) |
 * | `sub:<uri>` | SET | sids subscribed to the URI (the audience's size) |
 * | `streamed` | SET | sids that held a stream (the audience of list changes) |
 * | `{t<n>}:…` | | the task store's buckets (`n` from the task's caller, and in the task id; see lua/tasks.lua.ts, its scripts declare every key: see task-script-keys.ts) |
 * | `tasks` | HASH | tasks stored and their bytes, in all buckets: the global bounds `tasks.maxStored`, `maxStoredBytes` (touched on create and end only) |
 * | `{l}:leases`, `{l}:clock`, `{l}:grace` | ZSET, STRING, STRING | instance → the end of its lease (Redis time), the last beat of any instance, the grace after a gap (see lua/liveness.lua.ts): heartbeats and looks for orphaned tasks only |
 * | `rl:<key>` | HASH + TTL | rate-limit window of a caller without a session |
 * | `rsn:<nonce>` | STRING + TTL | a consumed MRTR request-state nonce, until its state expires |
 * | channel `{ev}:bus` | PUB/SUB | notifications of log shard 0 (with their shard and sequence), session ends, broadcasts |
 * | channel `{ev<k>}:bus` | PUB/SUB | notifications of log shard `k` (with their shard and sequence) |
 * | channel `to:{b<n>}:<id>` | PUB/SUB | messages for one instance about the sessions of one bucket: outbox entries, (un)subscriptions and replacements of the streams it holds, POST-stream events; `to:{b0}:<id>` also routed answers |
 *
 * On a cluster the channels are sharded (SSUBSCRIBE/SPUBLISH): a message reaches only the shard
 * that serves its channel's slot, and the instances listening there.
 *
 * A GET-stream event id is `g:<ep>-<out>:<log>`: the outbox sequence and the log position
 * written so far on that stream, the same on every instance; with several log shards, `<log>`
 * is one sequence per shard, joined by `.` (see get-event-id.ts).
 */
export class RedisKeys {
  constructor(
    readonly prefix: string,
    /** How many buckets the sessions, and the tasks, are spread over (1 on a single Redis). */
    readonly buckets: number = 1,
    /** On a Redis Cluster: scripts declare every key they touch (see sessionScriptKeys). */
    readonly clustered = false,
    /** How many shards the notification log is spread over (1 on a single Redis). */
    readonly logShards: number = 1,
  ) {
    if (/[{}]/.test(prefix)) throw new Error(`keyPrefix '${prefix}' must not contain '{' or '}' (they make hash tags)`);
    if (!(Number.isSafeInteger(buckets) && buckets >= 1 && buckets <= 16_384)) {
      throw new Error(`sessionBuckets must be an integer from 1 to 16384, got ${String(buckets)}`);
    }
    if (!(Number.isSafeInteger(logShards) && logShards >= 1 && logShards <= MAX_LOG_SHARDS)) {
      throw new Error(`notificationLogShards must be an integer from 1 to ${MAX_LOG_SHARDS}, got ${String(logShards)}`);
    }
  }

  /** The hash tag of a session's bucket (`b<n>`, FNV-1a of the id). */
  bucketOf(sid: string): string {
    if (this.buckets === 1) return 'b0';
    return `b${fnv1a(sid) % this.buckets}`;
  }

  /**
   * The log shard of a notification's target (a URI, or a list kind): FNV-1a of it, so that
   * every notification of one URI (of one list) goes through one shard, in order.
   */
  logShardOf(target: string): number {
    return this.logShards === 1 ? 0 : fnv1a(target) % this.logShards;
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

  /** A shard of the notification log (a stream shared by every session): `{ev}` for shard 0, `{ev<k>}` after. */
  log(shard: number): string {
    return `${this.prefix}{ev${shard === 0 ? '' : shard}}`;
  }

  /** A log shard's counter (same slot as its stream). */
  logHead(shard: number): string {
    return `${this.log(shard)}:n`;
  }

  /** A log shard's channel (same slot as its stream: the fan-out script publishes on it). */
  logBus(shard: number): string {
    return `${this.log(shard)}:bus`;
  }

  /** Every log shard's number, 0 first. */
  allLogShards(): number[] {
    return Array.from({ length: this.logShards }, (_, k) => k);
  }

  subscribers(uri: string): string {
    return `${this.prefix}sub:${uri}`;
  }

  get streamed(): string {
    return `${this.prefix}streamed`;
  }

  /**
   * The task bucket of a caller (FNV-1a of its key, '' for none): a caller's tasks and accounts
   * share one bucket, so that its budget is checked where its tasks are created.
   */
  taskBucketOfCaller(caller: string | undefined): number {
    return this.buckets === 1 ? 0 : fnv1a(caller ?? '') % this.buckets;
  }

  /** The task bucket of an owner's index (FNV-1a of the owner). */
  taskBucketOfOwner(owner: string): number {
    return this.buckets === 1 ? 0 : fnv1a(owner) % this.buckets;
  }

  /**
   * The id of a new task of `caller`: `<bucket>.<random>` (its caller's bucket, so that a lookup
   * by id alone finds it), or `random` itself with one bucket.
   */
  newTaskId(random: string, caller: string | undefined): string {
    return this.buckets === 1 ? random : `${this.taskBucketOfCaller(caller)}.${random}`;
  }

  /** The bucket of a task from its id (0 for an id this store did not make: it finds nothing there). */
  taskBucketOfTask(taskId: string): number {
    if (this.buckets === 1) return 0;
    const match = /^(\d{1,5})\./.exec(taskId);
    const bucket = match ? Number(match[1]) : 0;
    return bucket < this.buckets ? bucket : 0;
  }

  /** The anchor key of a task bucket (every task script names its bucket's first). */
  taskBucket(bucket: number): string {
    return `${this.prefix}{t${bucket}}`;
  }

  /** Every task bucket's anchor key. */
  allTaskBuckets(): string[] {
    return Array.from({ length: this.buckets }, (_, n) => this.taskBucket(n));
  }

  /** Tasks stored and their bytes in all buckets (the global bounds): a key of its own. */
  get taskCount(): string {
    return `${this.prefix}tasks`;
  }

  /**
   * The instances' leases (in a slot of their own): a sorted set, member = the instance, score =
   * the end of its lease in Redis time, renewed by its heartbeat.
   */
  get leases(): string {
    return `${this.prefix}{l}:leases`;
  }

  /** The key that holds an instance's lease: the sorted set of every lease (see `leases`). */
  instance(_instanceId: string): string {
    return this.leases;
  }

  /** When any instance last beat (Redis time), in the leases' slot (see lua/liveness). */
  get lastBeat(): string {
    return `${this.prefix}{l}:clock`;
  }

  /** Until when no lease counts as ended (set after a gap in the beats, see lua/liveness). */
  get leaseGrace(): string {
    return `${this.prefix}{l}:grace`;
  }

  /** A consumed MRTR request-state nonce (the replay guard). */
  requestStateNonce(nonce: string): string {
    return `${this.prefix}rsn:${nonce}`;
  }

  /** A rate-limit window of a caller without a session. */
  rateWindow(key: string): string {
    return `${this.prefix}rl:${key}`;
  }

  /**
   * The channel of messages for every instance (session ends, broadcasts): log shard 0's, which
   * every instance listens to with the other shards' channels.
   */
  get bus(): string {
    return this.logBus(0);
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

/** The most log shards a deployment may have: a GET event id carries one position per shard. */
export const MAX_LOG_SHARDS = 64;

/** FNV-1a (32 bits) of a string's UTF-16 code units: spreads ids and URIs over buckets and shards. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** What of a session a script touches: its hash, subscriptions, outbox, POST-stream index, rate window. */
export type SessionPart = 'hash' | 'subs' | 'out' | 'rs' | 'rl';

/** What of its bucket a session script touches besides the activity index: the pair count, the pending ends. */
export type BucketPart = 'sc' | 'e';

/**
 * Every part: what a script that may end a session touches (see `endSession` in lua/prelude),
 * but its POST-stream logs: their ids are in `rs`, so on a cluster the script asks for their keys
 * (see `wantPostLogs` in lua/prelude and asked-keys.ts).
 */
export const ENDING_PARTS: readonly SessionPart[] = ['hash', 'subs', 'out', 'rs', 'rl'];
export const ENDING_BUCKET: readonly BucketPart[] = ['sc', 'e'];

/**
 * The keys a session script declares (`KEYS`): the bucket key first (it names the slot), the
 * bucket's other keys it touches, then the parts of each session it touches. Declared, every
 * key is checked by the cluster before the script runs: while the slot migrates, Redis sends the
 * script to the node that has all of them (ASK), or answers TRYAGAIN (retried, at worst a 503)
 * while they are split between the two nodes. A key a script only builds is checked when the
 * script reaches it: a node that gave it away already stops the script there ("non local
 * key"), half done.
 */
export function sessionScriptKeys(
  keys: RedisKeys,
  tag: string,
  sids: readonly string[],
  parts: readonly SessionPart[],
  bucket: readonly BucketPart[] = [],
): string[] {
  const declared = [keys.bucket(tag)];
  // One Redis has no slots to check: the bucket key, and the session's hash when there is one
  // session, keep the request's lookup (every request makes one) as short as it was.
  if (!keys.clustered) {
    if (sids.length === 1 && parts.includes('hash')) declared.push(keys.session(sids[0]));
    return declared;
  }
  for (const part of bucket) declared.push(part === 'sc' ? keys.subscriptionCount(tag) : keys.pendingEnds(tag));
  for (const sid of sids) {
    const session = keys.session(sid);
    for (const part of parts) declared.push(part === 'hash' ? session : `${session}:${part}`);
  }
  return declared;
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
