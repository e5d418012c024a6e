import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { MCP_ALL_INSTANCES, type McpInstanceMessageHandler, type McpInstanceMessaging } from '@nest-mcp/server/backend';
import { describeError, guarded } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';

/** A message on the `bus` or `to:<id>` channel: its type `t`, the sender, and its own fields. */
export interface BusMessage {
  readonly t: string;
  readonly from?: string;
  readonly [field: string]: unknown;
}

type BusHandler = (message: BusMessage) => void;

/**
 * The one subscriber connection of this instance: the `bus` channel (every instance) and its
 * own `to:<id>` channel. It dispatches messages by type to the backend's parts and carries
 * `McpInstanceMessaging` (type `msg`). After a reconnect it tells `onReconnect` listeners, who
 * catch up on what the lost messages would have said (they were only hints: the state is in
 * Redis).
 */
export class RedisPubSub implements McpInstanceMessaging {
  private readonly logger = new Logger('McpRedis');
  private readonly handlers = new Map<string, BusHandler>();
  private readonly topics = new Map<string, McpInstanceMessageHandler>();
  private readonly reconnectListeners: Array<() => void> = [];
  private everReady = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly publisher: Redis,
    private readonly keys: RedisKeys,
    readonly instanceId: string,
  ) {
    subscriber.on('message', (channel: string, raw: string) => this.dispatch(channel, raw));
    subscriber.on('ready', () => {
      if (this.everReady) for (const listener of this.reconnectListeners) listener();
      this.everReady = true;
    });
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

  /** Subscribes to the channels; resolves once Redis confirmed (or rejects when it is down). */
  async start(): Promise<void> {
    await this.subscriber.subscribe(this.keys.bus, this.keys.direct(this.instanceId));
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
    this.publisher.publish(channel, message).catch((error: unknown) => {
      this.logger.warn(`Could not send a ${topic} message to ${target}: ${describeError(error)}`);
    });
  }

  on(topic: string, handler: McpInstanceMessageHandler): void {
    this.topics.set(topic, handler);
  }

  /** The instances whose liveness key (refreshed by their heartbeat) has expired: one MGET. */
  async deadInstances(instanceIds: readonly string[]): Promise<string[]> {
    if (instanceIds.length === 0) return [];
    const alive = await guarded(this.publisher.mget(instanceIds.map((id) => this.keys.instance(id))));
    return instanceIds.filter((_, i) => alive[i] === null);
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
