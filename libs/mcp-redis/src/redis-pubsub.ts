import {
  McpLogger,
  MCP_ALL_INSTANCES,
  type McpInstanceMessageHandler,
  type McpInstanceMessaging,
} from '@nest-mcp/server/backend';
import { describeError } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisClient, RedisScripts } from './redis-scripts.js';

/** A message on the `bus` or `to:<id>` channel: its type `t`, the sender, and its own fields. */
export interface BusMessage {
  readonly t: string;
  readonly from?: string;
  readonly [field: string]: unknown;
}

type BusHandler = (message: BusMessage) => void;

/**
 * The one subscriber connection of this instance: the channel of every notification log shard
 * (shard 0's is the `bus` channel, which also carries messages for every instance) and its own
 * `to:{b<n>}:<id>` channels (one per session bucket).
 *
 * On a cluster the channels are sharded (`sharded`): SSUBSCRIBE through ioredis's sharded
 * subscribers (one connection per master that serves a channel of ours), SPUBLISH to publish.
 * ioredis subscribes again on the new master when a failover or a resharding moves a channel's
 * slot, as soon as the cluster reports it, and says so (`subscribersReady`): the listeners then
 * catch up as after a reconnect. It dispatches messages by type to the backend's parts and carries
 * `McpInstanceMessaging` (type `msg`). After a reconnect it subscribes again and, once Redis
 * confirmed, tells `onReconnect` listeners, who catch up on what the lost messages would have
 * said (they were only hints: the state is in Redis).
 *
 * The connection is made with ioredis's `autoResubscribe` off and subscribes again itself: the
 * listeners must read Redis after the channels are back (a message published between their read
 * and the subscription would otherwise be missed until the next heartbeat), and ioredis leaves
 * the promise of its own resubscribe unhandled, so a connection that ends before Redis answered
 * it (a close during a reconnect) would raise an unhandled rejection in the application.
 */
export class RedisPubSub implements McpInstanceMessaging {
  private readonly logger = new McpLogger('McpRedis');
  private readonly handlers = new Map<string, BusHandler>();
  private readonly topics = new Map<string, McpInstanceMessageHandler>();
  private readonly reconnectListeners: Array<() => void> = [];
  /** Set once the subscriber was ready: any later 'ready' is a reconnect. */
  private everReady = false;
  /** The first subscribe failed (Redis was down at startup): the first 'ready' subscribes. */
  private unsubscribed = false;
  private stopped = false;

  constructor(
    private readonly subscriber: RedisClient,
    private readonly publisher: RedisClient,
    private readonly scripts: RedisScripts,
    private readonly keys: RedisKeys,
    readonly instanceId: string,
    private readonly sharded = false,
  ) {
    subscriber.on(sharded ? 'smessage' : 'message', (channel: string, raw: string) => this.dispatch(channel, raw));
    if (sharded) {
      subscriber.on('subscribersReady', () => {
        // The first subscribe failed (the cluster was down at startup): subscribing now.
        if (this.unsubscribed && !this.stopped) void this.subscribeAgain();
        else if (this.everReady && !this.stopped) this.reconnected();
        this.everReady = true;
      });
    } else {
      subscriber.on('ready', () => {
        if ((this.everReady || this.unsubscribed) && !this.stopped) void this.subscribeAgain();
        this.everReady = true;
      });
    }
    this.handle('msg', (message) => {
      if (message.from === this.instanceId && message.to === MCP_ALL_INSTANCES) return;
      const handler = this.topics.get(String(message.topic));
      try {
        handler?.(message.payload, String(message.from));
      } catch (error) {
        this.logger.error(`A ${String(message.topic)} message failed: ${describeError(error)}`);
      }
    });
  }

  /**
   * Subscribes to the channels; resolves once Redis confirmed (or rejects when it is down, and
   * subscribes when the connection is first ready).
   */
  async start(): Promise<void> {
    try {
      await this.subscribeChannels();
    } catch (error) {
      this.unsubscribed = true;
      throw error;
    }
  }

  /** No more subscribing or telling listeners: the connections are being closed. */
  stop(): void {
    this.stopped = true;
  }

  /** Registers the handler of a message type (`u`, `end`, `post`, ...). */
  handle(type: string, handler: BusHandler): void {
    this.handlers.set(type, handler);
  }

  /** Runs `listener` after the subscriber reconnected. */
  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  send(target: string, topic: string, payload: unknown): void {
    const channel = target === MCP_ALL_INSTANCES ? this.keys.bus : this.keys.direct(target);
    const message = JSON.stringify({ t: 'msg', from: this.instanceId, to: target, topic, payload });
    this.publish(channel, message).catch((error: unknown) => {
      this.logger.warn(`Could not send a ${topic} message to ${target}: ${describeError(error)}`);
    });
  }

  on(topic: string, handler: McpInstanceMessageHandler): void {
    this.topics.set(topic, handler);
  }

  /** Publishes on a channel: SPUBLISH on a cluster, PUBLISH on one Redis. */
  publish(channel: string, message: string): Promise<unknown> {
    return this.sharded ? this.publisher.spublish(channel, message) : this.publisher.publish(channel, message);
  }

  private subscribeChannels(): Promise<unknown> {
    // Every log shard's channel (shard 0's is `bus`) and the instance's own.
    const channels = [
      ...this.keys.allLogShards().map((shard) => this.keys.logBus(shard)),
      ...this.keys.directChannels(this.instanceId),
    ];
    // Sharded: one SSUBSCRIBE per channel (each names its own slot).
    if (this.sharded) return Promise.all(channels.map((channel) => this.subscriber.ssubscribe(channel)));
    return this.subscriber.subscribe(...channels);
  }

  /** After a reconnect: the channels again, then the listeners (once Redis confirmed them). */
  private async subscribeAgain(): Promise<void> {
    try {
      await this.subscribeChannels();
    } catch (error) {
      // The connection ended again before Redis answered: its next 'ready' tries again.
      if (!this.stopped) this.logger.warn(`Subscribing again failed: ${describeError(error)}`);
      this.unsubscribed = true;
      return;
    }
    this.unsubscribed = false;
    if (this.stopped) return;
    this.reconnected();
  }

  private reconnected(): void {
    for (const listener of this.reconnectListeners) listener();
  }

  /**
   * The instances whose lease (renewed by their heartbeat) has ended, a failover's gap aside
   * (see `instanceGone` in lua/prelude): one script call.
   */
  async deadInstances(instanceIds: readonly string[]): Promise<string[]> {
    if (instanceIds.length === 0) return [];
    const keys = [this.keys.leases, this.keys.lastBeat, this.keys.leaseGrace];
    return this.scripts.run<string[]>('mcpDeadInstances', keys, ...instanceIds);
  }

  private dispatch(channel: string, raw: string): void {
    let message: BusMessage;
    try {
      message = JSON.parse(raw) as BusMessage;
    } catch {
      this.logger.warn(`Ignored a message on ${channel} that is not JSON`);
      return;
    }
    const handler = this.handlers.get(message.t);
    if (!handler) return;
    try {
      handler(message);
    } catch (error) {
      this.logger.error(`Handling a ${message.t} message failed: ${describeError(error)}`);
    }
  }
}
