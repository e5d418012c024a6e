import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Cluster, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import {
  McpLogger,
  DELIVERY_QUEUE_GAUGE,
  type McpBackend,
  type McpBackendContext,
  type McpBackendParts,
} from '@nest-mcp/server/backend';
import { describeError } from './redis-errors.js';
import { RedisKeys } from './redis-keys.js';
import { RedisDelivery } from './redis-delivery.js';
import { RedisPostStreams } from './redis-post-streams.js';
import { RedisPubSub } from './redis-pubsub.js';
import { RedisRateWindows } from './redis-rate-windows.js';
import { RedisRequestStateNonces } from './redis-request-state-nonces.js';
import { RedisScripts, type RedisClient } from './redis-scripts.js';
import { RedisSessionStore } from './redis-session.store.js';
import { RedisSkillKeys, RedisSkillStore } from './redis-skill.store.js';
import { RedisSubscriptionStore } from './redis-subscription.store.js';
import { RedisTaskStore } from './redis-task.store.js';
import { PendingEnds } from './pending-ends.js';
import { RemoteHolders } from './remote-holders.js';
import { SessionEnds } from './session-ends.js';
import { TurnBatchedRedis } from './turn-batched-redis.js';

/** Options of `RedisMcpBackend`. @publicApi */
export interface RedisMcpBackendOptions {
  /**
   * Where Redis is: a `redis://` or `rediss://` URL.
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * More `ioredis` options (TLS, password, Sentinel, ...), merged over the backend's defaults.
   * `replyMapping` is not among them: the backend's scripts answer in the default shape. On a
   * cluster they are the options of every node's connection (`redisOptions`).
   */
  redis?: Omit<RedisOptions, 'replyMapping'>;
  /**
   * Seed nodes of a Redis Cluster (`host:port` strings or `{ host, port }`): set, the backend
   * runs on the cluster through ioredis's `Cluster` client instead of `url` (whose credentials
   * and TLS go in `redis`, as `password`, `username`, `tls`). Needs Redis 7.0 or Valkey. See
   * docs/several-instances.md for the key layout and what a failover costs.
   */
  clusterNodes?: readonly (string | { host: string; port: number })[];
  /**
   * More options of ioredis's `Cluster` client (`natMap`, `dnsLookup`, `slotsRefreshInterval`,
   * ...), merged over the backend's defaults; only with `clusterNodes`.
   */
  cluster?: Omit<ClusterOptions, 'redisOptions' | 'scripts'>;
  /**
   * Buckets the sessions are spread over: each bucket is one hash slot (its sessions' keys and
   * its activity index), so a cluster spreads the sessions over this many slots, and the sweep
   * and the session count make one call per bucket.
   * @default 1 on one Redis, 256 on a cluster
   */
  sessionBuckets?: number;
  /**
   * Prefix of every key and channel; deployments that share a Redis use different ones.
   * @default 'mcp:'
   */
  keyPrefix?: string;
  /**
   * This instance's id: unique among the live instances, letters, digits and `._-` only.
   * @default '<host name>-<pid>-<random>'
   */
  instanceId?: string;
  /**
   * How long a Redis call may take before the request is answered 503 (`Retry-After`).
   * @default 2_000
   */
  commandTimeoutMs?: number;
  /**
   * How often the instance proves it lives (its streams keep their sessions alive while it
   * does), refreshes the TTLs of the sessions whose streams it holds, and polls their outboxes
   * for anything a lost pub/sub message did not bring.
   * @default 5_000
   */
  heartbeatMs?: number;
  /**
   * Entries kept in the notification log that every session's GET stream reads from (trimmed
   * with `MAXLEN ~`, so at least this many), in each of its shards: a client resuming with
   * `Last-Event-ID` gets what it missed while its cursor is still in the log, and a resync after
   * that.
   * @default 10_000
   */
  notificationLogLength?: number;
  /**
   * Shards the notification log is spread over, 1 to 64: each is one hash slot (its stream, its
   * counter and its channel), and a notification goes through the shard of its URI (of its list
   * kind), so on a cluster the notifications spread over the masters serving these slots. Each
   * GET event id carries one position per shard, and a resume reads every shard (one script
   * each, sent together). Every instance of a deployment must use the same number; changing it
   * makes the clients' ids resync once.
   * @default 1 on one Redis, 16 on a cluster
   */
  notificationLogShards?: number;
  /**
   * How far behind the notification log's head a `Last-Event-ID` may be and still be replayed,
   * in log entries (every notification of the deployment counts, not only the session's; with
   * several log shards, the entries of all shards together, and each shard's read is bounded by
   * it too). A
   * client further behind gets a resync, and the log is not read. This bounds the Redis work of
   * one GET, whatever id the client sends: an attach reads at most this many log entries and
   * `replayBufferSize` outbox entries. Larger values replay longer absences, at that cost.
   * @default 1_000
   */
  replayWindow?: number;
}

const INSTANCE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** How often a cluster subscriber reads the slot map (see clusterConnections). */
const SUBSCRIBER_SLOTS_REFRESH_MS = 1_000;

/** How long closing waits for a connection's pending replies (QUIT) before it drops it. */
const CLOSE_GRACE_MS = 1_000;

/**
 * Closes a connection for good: QUIT, so the replies still pending arrive, then a disconnect.
 * Redis being gone is no reason to wait: ioredis queues a QUIT behind the commands waiting for a
 * reconnect, so QUIT alone could wait for ever, with the connection reconnecting meanwhile (its
 * timers keep the process alive). The disconnect ends the reconnecting.
 */
async function closeConnection(client: RedisClient): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_GRACE_MS);
    timer.unref();
  });
  await Promise.race([
    client.quit().then(
      () => undefined,
      () => undefined,
    ),
    grace,
  ]);
  clearTimeout(timer);
  client.disconnect();
}

/**
 * The Redis backend of `@nest-mcp/server`: sessions, subscriptions, replayable outboxes, POST
 * answer logs, rate-limit windows, the replay guard of MRTR request states, tasks, runtime skills and the routing
 * of client answers and cancellations live in Redis, so any instance serves any request of any
 * session. Pass it as `McpModule.forRoot({ backend: new RedisMcpBackend({ url }) })`.
 *
 * Two connections per instance: one for commands (Lua scripts, one round trip each) and one
 * subscriber (the `bus` channel and the instance's own), named `nest-mcp:<instanceId>` and
 * `nest-mcp:<instanceId>:sub` in `CLIENT LIST` (or `<redis.connectionName>` and
 * `<redis.connectionName>:sub`). When Redis cannot be reached, requests
 * that need it are answered 503 with `Retry-After`; nothing crashes, and delivery catches up
 * from the outboxes when Redis is back.
 * @publicApi
 */
export class RedisMcpBackend implements McpBackend {
  private readonly logger = new McpLogger('McpRedis');

  constructor(private readonly options: RedisMcpBackendOptions = {}) {
    if (options.instanceId !== undefined && !INSTANCE_ID.test(options.instanceId)) {
      throw new Error(
        `instanceId '${options.instanceId}' must be 1 to 64 letters, digits, '.', '_' or '-' (it names the instance in Redis)`,
      );
    }
    const window = options.replayWindow;
    if (window !== undefined && !(Number.isSafeInteger(window) && window > 0)) {
      throw new Error(`replayWindow must be a positive integer (log entries), got ${String(window)}`);
    }
  }

  async connect({ options, telemetry }: McpBackendContext): Promise<McpBackendParts> {
    const instanceId =
      this.options.instanceId ??
      `${hostname().replace(/[^A-Za-z0-9._-]/g, '')}-${process.pid}-${randomBytes(3).toString('hex')}`;
    const clustered = this.options.clusterNodes !== undefined;
    const keys = new RedisKeys(
      this.options.keyPrefix ?? 'mcp:',
      this.options.sessionBuckets ?? (clustered ? 256 : 1),
      clustered,
      this.options.notificationLogShards ?? (clustered ? 16 : 1),
    );
    // Named (CLIENT SETNAME), so that CLIENT LIST tells which instance holds which connection.
    const connectionName = this.options.redis?.connectionName ?? `nest-mcp:${instanceId}`;
    const { redis, subscriber } = clustered
      ? this.clusterConnections(connectionName)
      : this.singleConnections(connectionName, telemetry);
    this.logErrors(redis, 'commands');
    this.logErrors(subscriber, 'subscriber');

    const idle = options.sessionIdleTimeoutMs;
    const ttlMs = Math.max(2 * idle, idle + 60_000);
    const scripts = new RedisScripts(redis, keys.prefix, instanceId, clustered);
    const ends = new SessionEnds();
    const holders = new RemoteHolders();
    const pubsub = new RedisPubSub(subscriber, redis, scripts, keys, instanceId, clustered);
    const posts = new RedisPostStreams(scripts, redis, keys, pubsub, ends, options.replayBufferSize);
    const sessions = new RedisSessionStore(
      scripts,
      redis,
      keys,
      ttlMs,
      ends,
      holders,
      new PendingEnds(redis, keys, pubsub),
    );
    // Fan-out and live streams share one state: the streams held here and their URI index.
    const delivery = new RedisDelivery(scripts, redis, keys, pubsub, ends, holders, {
      outboxLength: options.replayBufferSize,
      logLength: this.options.notificationLogLength ?? 10_000,
      replayWindow: this.options.replayWindow ?? 1_000,
      ttlMs,
      heartbeatMs: this.options.heartbeatMs ?? 5_000,
    });
    const subscriptions = new RedisSubscriptionStore(
      scripts,
      redis,
      keys,
      clustered ? (uri) => delivery.knownHeadOf(uri) : undefined,
    );
    telemetry?.gauge(
      DELIVERY_QUEUE_GAUGE.name,
      DELIVERY_QUEUE_GAUGE.description,
      DELIVERY_QUEUE_GAUGE.unit,
      (observe) => observe(delivery.queued),
    );
    // Redis down at startup is an outage like any other: the instance starts, answers 503,
    // and the clients' retries succeed once it is back.
    await pubsub.start().catch((error: unknown) => this.logger.warn(`Subscribing failed: ${describeError(error)}`));
    await delivery.start();
    this.logger.log(
      `Instance ${instanceId} on ${clustered ? 'a Redis Cluster' : 'Redis'} (key prefix '${keys.prefix}')`,
    );
    return {
      sessions,
      subscriptions,
      fanout: delivery,
      liveStreams: delivery,
      postStreams: posts,
      messaging: pubsub,
      rateWindows: new RedisRateWindows(scripts, keys),
      requestStateNonces: new RedisRequestStateNonces(redis, keys),
      tasks: new RedisTaskStore(scripts, keys, this.options.heartbeatMs ?? 5_000),
      skills: new RedisSkillStore(redis, new RedisSkillKeys(keys.prefix)),
      close: async () => {
        delivery.stop();
        pubsub.stop();
        await Promise.allSettled([closeConnection(subscriber), closeConnection(redis)]);
      },
    };
  }

  /** One Redis: the command connection and the subscriber. */
  private singleConnections(
    connectionName: string,
    telemetry: McpBackendContext['telemetry'],
  ): { redis: RedisClient; subscriber: RedisClient } {
    // Requests arriving together (many connections of one load balancer) send their commands
    // in one write per loop turn instead of one each (see TurnBatchedRedis).
    const redis = new TurnBatchedRedis(this.options.url ?? 'redis://127.0.0.1:6379', {
      commandTimeout: this.options.commandTimeoutMs ?? 2_000,
      maxRetriesPerRequest: 1,
      ...this.options.redis,
      connectionName,
    });
    // One CLIENT span per command a request sends; the subscriber (a plain connection) makes
    // none: what it hears is background work of no request.
    redis.traceWith(telemetry);
    // Subscribed again after a reconnect by RedisPubSub itself (see there), not by ioredis.
    const subscriber = redis.duplicate({
      commandTimeout: undefined,
      autoResubscribe: false,
      connectionName: `${connectionName}:sub`,
    });
    return { redis, subscriber };
  }

  /**
   * A Redis Cluster: ioredis's `Cluster` client (one connection per node, commands routed by
   * their keys' slot, MOVED and ASK followed, the slot map refreshed on failover) for commands,
   * and a second one for the subscriber. A command in flight when its master dies fails after
   * `commandTimeoutMs` (503); the next ones go to the promoted replica once the cluster says so.
   */
  private clusterConnections(connectionName: string): { redis: RedisClient; subscriber: RedisClient } {
    const nodes: ClusterNode[] = this.options.clusterNodes!.map((node) => {
      if (typeof node !== 'string') return node;
      const at = node.lastIndexOf(':');
      const port = Number(node.slice(at + 1));
      if (at <= 0 || !Number.isInteger(port) || port < 1 || port > 65_535) {
        throw new Error(`clusterNodes: '${node}' is not host:port`);
      }
      return { host: node.slice(0, at), port };
    });
    if (nodes.length === 0) throw new Error('clusterNodes: at least one seed node is needed');
    const options = (name: string, commandTimeout: number | undefined, subscriber = false): ClusterOptions => ({
      // Failover and resharding: MOVED/ASK are followed, and a command meeting a failover
      // waits for the new slot map a little instead of failing at once.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      maxRedirections: 16,
      // The subscriber sends no command that a MOVED would answer: it learns that a channel's
      // slot moved from the old master's unsolicited SUNSUBSCRIBE, or from a node it asks
      // while the master it subscribed on is down. A node asked then may not know the new
      // map yet (the cluster spreads it by gossip), and ioredis would not ask again: the slot
      // map is read every second, so that a channel follows its slot within about a second.
      ...(subscriber ? { slotsRefreshInterval: SUBSCRIBER_SLOTS_REFRESH_MS } : {}),
      ...this.options.cluster,
      // The subscriber's channels are sharded: one subscriber connection per master serving
      // one of them, moved by ioredis when their slots move.
      shardedSubscribers: subscriber,
      redisOptions: {
        commandTimeout,
        maxRetriesPerRequest: 1,
        ...this.options.redis,
        connectionName: name,
      },
    });
    const redis = new Cluster(nodes, options(connectionName, this.options.commandTimeoutMs ?? 2_000));
    const subscriber = new Cluster(nodes, options(`${connectionName}:sub`, undefined, true));
    // The command connection learns of a move first (a MOVED, a failed node): the subscriber
    // reads the slot map at once too, rather than at its next periodic read.
    redis.on('refresh', () => subscriber.refreshSlotsCache());
    return { redis, subscriber };
  }

  /** ioredis emits `error` on every failed reconnect: logged once per outage, not per attempt. */
  private logErrors(client: RedisClient, role: string): void {
    let down = false;
    client.on('error', (error: Error) => {
      if (!down) this.logger.warn(`Redis (${role}) unreachable: ${error.message}`);
      down = true;
    });
    client.on('ready', () => {
      if (down) this.logger.log(`Redis (${role}) reachable again`);
      down = false;
    });
  }
}
