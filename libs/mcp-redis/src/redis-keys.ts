/**
 * Key and channel names, all under one prefix (default `mcp:`). Every key of one session
 * carries the hash tag `{sid}`, so that a session's keys share one Redis Cluster slot:
 *
 * | Key | Type | Content |
 * |---|---|---|
 * | `s:{sid}` | HASH + TTL | `rec` (the record as JSON), `p:<field>` (patched facts as JSON), `ep` (outbox epoch), `seq` (outbox sequence), `holder` (`<instance> <token>` of the live standalone stream), `posts` |
 * | `s:{sid}:subs` | SET + TTL | subscribed URIs |
 * | `s:{sid}:out` | STREAM + TTL | the outbox: entry `<seq>-0`, field `j` = JSON; event id `g:<ep>:<seq>` |
 * | `s:{sid}:pend` | SET | coalescing keys queued while no stream is held |
 * | `s:{sid}:rs`, `s:{sid}:r:<id>`, `s:{sid}:rm:<id>` | ZSET, STREAM, HASH | POST-stream logs (event id `p:<id>:<seq>`) and their owner |
 * | `s:{sid}:rl` | HASH | the session's rate-limit window |
 * | `expiry` | ZSET | sid → last activity (the sweep's index; no keyspace notifications) |
 * | `sub:<uri>` | SET | sids subscribed to the URI (fan-out index) |
 * | `streamed` | SET | sids that held a stream (the audience of list changes) |
 * | `subcount` | STRING | number of (session, URI) pairs |
 * | `inst:<id>` | STRING + TTL | liveness of an instance (its heartbeat) |
 * | `rl:<key>` | HASH + TTL | rate-limit window of a caller without a session |
 * | channel `bus` | PUB/SUB | notifications, session ends, replaced streams, broadcasts |
 * | channel `to:<id>` | PUB/SUB | messages for one instance |
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
