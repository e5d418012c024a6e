/**
 * Key and channel names, all under one prefix (default `mcp:`). Every key of one session
 * carries the hash tag `{sid}`, so that a session's keys share one Redis Cluster slot:
 *
 * | Key | Type | Content |
 * |---|---|---|
 * | `s:{sid}` | HASH + TTL | `rec` (the record as JSON), `p:<field>` (patched facts as JSON), `ep` (outbox epoch), `seq` (outbox sequence), `holder` (`<instance> <token>` of the live standalone stream), `posts` |
 * | `s:{sid}:subs` | SET + TTL | subscribed URIs |
 * | `s:{sid}:out` | STREAM + TTL | the outbox, messages for this session alone (server→client requests, a resync): entry `<seq>-0`, fields `j` = JSON, `l` = the log's head when appended |
 * | `s:{sid}:rs`, `s:{sid}:r:<id>`, `s:{sid}:rm:<id>` | ZSET, STREAM, HASH | POST-stream logs (event id `p:<id>:<seq>`) and their owner |
 * | `s:{sid}:rl` | HASH | the session's rate-limit window |
 * | `expiry` | ZSET | sid → last activity (the sweep's index; no keyspace notifications) |
 * | `{ev}` | STREAM, `MAXLEN ~` (`notificationLogLength`) | the notification log, shared by every session: entry `<n>-0`, fields `k` (`u` updated, `l` list changed), `x` (URI or list kind), `j` = JSON |
 * | `{ev}:n` | STRING | the log's counter (`n` of its last entry) |
 * | `sub:<uri>` | SET | sids subscribed to the URI (the audience's size; replay filters on `s:{sid}:subs`) |
 * | `streamed` | SET | sids that held a stream (the audience of list changes) |
 * | `subcount` | STRING | number of (session, URI) pairs |
 * | `inst:<id>` | STRING + TTL | liveness of an instance (its heartbeat) |
 * | `rl:<key>` | HASH + TTL | rate-limit window of a caller without a session |
 * | `rsn:<nonce>` | STRING + TTL | a consumed MRTR request-state nonce, until its state expires |
 * | channel `bus` | PUB/SUB | notifications (with their log sequence), session ends, replaced streams, broadcasts |
 * | channel `to:<id>` | PUB/SUB | messages for one instance: outbox entries and (un)subscriptions of the streams it holds, POST-stream events, routed answers |
 *
 * A GET-stream event id is `g:<ep>-<out>:<log>`: the outbox sequence and the log sequence
 * written so far on that stream, the same on every instance. The log is one key (`{ev}`, with
 * its counter in the same hash slot): in Redis Cluster every notification goes through that one
 * slot, which costs a constant number of commands per notification.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  session(sid: string): string {
    return `${this.prefix}s:{${sid}}`;
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

  /** The notification log (a stream shared by every session). */
  get log(): string {
    return `${this.prefix}{ev}`;
  }

  subscribers(uri: string): string {
    return `${this.prefix}sub:${uri}`;
  }

  get expiry(): string {
    return `${this.prefix}expiry`;
  }

  /** The liveness key of an instance, kept by its heartbeat. */
  instance(instanceId: string): string {
    return `${this.prefix}inst:${instanceId}`;
  }

  /** A consumed MRTR request-state nonce (the replay guard). */
  requestStateNonce(nonce: string): string {
    return `${this.prefix}rsn:${nonce}`;
  }

  get subscriptionCount(): string {
    return `${this.prefix}subcount`;
  }

  /** The channel every instance listens to. */
  get bus(): string {
    return `${this.prefix}bus`;
  }

  /** The channel of one instance. */
  direct(instanceId: string): string {
    return `${this.prefix}to:${instanceId}`;
  }
}
