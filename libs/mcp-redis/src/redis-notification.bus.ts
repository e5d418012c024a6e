import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  LIST_CHANGED_JSON,
  ListenerIndex,
  resourceUpdatedJson,
  type McpConnection,
  type McpDeliveryReport,
  type McpListener,
  type McpListKind,
  type McpNotificationBus,
  type McpPostStream,
  type McpPostStreamResume,
  type McpSessionEndListener,
} from '@nest-mcp/server';
import { OrderedWriter, type LoggedEvent } from './ordered-writer.js';
import { describeError, guarded } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisPostStreams } from './redis-post-streams.js';
import type { BusMessage, RedisPubSub } from './redis-pubsub.js';
import type { RedisScripts } from './redis-scripts.js';
import type { RemoteHolders } from './remote-holders.js';
import type { SessionEnds } from './session-ends.js';

/** How soon a client whose stream was drained by a shutdown should reconnect. */
const DRAIN_RETRY_MS = 1_000;

/** The updated notification around its URI, for the resync the attach script writes. */
const UPDATED_PREFIX = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":';
const UPDATED_SUFFIX = '}}';

const GET_EVENT_ID = /^g:([A-Za-z0-9_-]+):(\d+)$/;

/** One standalone stream this instance holds. */
interface HeldStream {
  /** `<instance> <token>`: how Redis names this stream as the session's holder. */
  readonly holder: string;
  readonly writer: OrderedWriter;
}

/** What a bus needs to know about its deployment. */
export interface RedisBusSettings {
  /** Outbox entries kept per session (`replayBufferSize`). */
  readonly outboxLength: number;
  /** The session keys' TTL, refreshed by the heartbeat for held sessions. */
  readonly ttlMs: number;
  /** How often the instance proves it lives and polls its streams. */
  readonly heartbeatMs: number;
}

/**
 * Delivery on Redis. Each session has an outbox (a Redis stream, ids `g:<epoch>:<seq>`, the same
 * on every instance); a notification is appended to every outbox of its audience and published
 * ONCE on the `bus` channel with, for each session whose stream is held somewhere, its sequence
 * and holder: each instance writes to the streams it holds and to its own modern listeners
 * (`ListenerIndex`), and nothing else happens per subscriber. A holder writes each stream's
 * events in order, once (`OrderedWriter`); a lost pub/sub message is caught up from the outbox
 * at the next message or the heartbeat's poll.
 */
export class RedisNotificationBus implements McpNotificationBus {
  private readonly logger = new Logger('McpRedis');
  private readonly held = new Map<string, HeldStream>();
  private readonly listeners = new ListenerIndex();
  private readonly me: string;
  private heartbeatTimer?: NodeJS.Timeout;

  constructor(
    private readonly scripts: RedisScripts,
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly pubsub: RedisPubSub,
    private readonly ends: SessionEnds,
    private readonly holders: RemoteHolders,
    private readonly posts: RedisPostStreams,
    private readonly settings: RedisBusSettings,
  ) {
    this.me = scripts.instanceId;
    ends.listen((sessionId) => this.ended(sessionId));
    pubsub.handle('u', (message) => this.onNotification(message));
    pubsub.handle('l', (message) => this.onNotification(message));
    pubsub.handle('s', (message) => this.deliverAll(message.d, String(message.j)));
    pubsub.handle('end', (message) => {
      if (message.from !== this.me) this.ends.announce(String(message.sid), message.reason as never);
    });
    pubsub.handle('replaced', (message) => this.replaced(String(message.sid), String(message.holder)));
    pubsub.onReconnect(() => void this.heartbeat());
  }

  /** Starts the heartbeat (liveness, TTLs of held sessions, safety poll); the first beat is awaited. */
  async start(): Promise<void> {
    await this.heartbeat();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.settings.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  stop(): void {
    clearInterval(this.heartbeatTimer);
  }

  async resourceUpdated(uri: string): Promise<McpDeliveryReport> {
    const json = resourceUpdatedJson(uri);
    const listeners = this.listeners.resourceUpdated(uri);
    const sessions = await this.fanout('u', uri, json, uri);
    return { sessions, listeners };
  }

  async listChanged(kind: McpListKind): Promise<McpDeliveryReport> {
    const json = LIST_CHANGED_JSON[kind];
    const listeners = this.listeners.listChanged(kind);
    const sessions = await this.fanout('l', kind, json, json);
    return { sessions, listeners };
  }

  addListener(listener: McpListener): () => void {
    return this.listeners.add(listener);
  }

  async attach(sessionId: string, connection: McpConnection, lastEventId?: string): Promise<boolean> {
    const holder = `${this.me} ${randomBytes(6).toString('base64url')}`;
    let epoch = '';
    const writer = new OrderedWriter(
      connection,
      (seq) => `g:${epoch}:${seq}`,
      (after) => this.readOutbox(sessionId, after),
      () => this.refused(sessionId, holder),
    );
    const stream: HeldStream = { holder, writer };
    const previous = this.held.get(sessionId);
    // Registered before the script runs: live events that overtake its reply wait in the writer.
    this.held.set(sessionId, stream);
    const last = lastEventId === undefined ? undefined : GET_EVENT_ID.exec(lastEventId);
    let reply: 0 | [string, number, ...(string | number)[]];
    try {
      reply = await this.scripts.run(
        'mcpAttach',
        sessionId,
        holder,
        lastEventId === undefined ? '-' : (last?.[2] ?? ''),
        last?.[1] ?? '',
        this.settings.outboxLength,
        UPDATED_PREFIX,
        UPDATED_SUFFIX,
        ...Object.values(LIST_CHANGED_JSON),
      );
    } catch (error) {
      this.forget(sessionId, stream);
      throw error;
    }
    if (reply === 0) {
      this.forget(sessionId, stream);
      return false;
    }
    if (previous && previous.writer.connection !== connection) previous.writer.connection.close();
    const [sessionEpoch, current, ...flat] = reply;
    epoch = sessionEpoch;
    const events: LoggedEvent[] = [];
    for (let i = 0; i < flat.length; i += 2) events.push({ seq: Number(flat[i]), json: String(flat[i + 1]) });
    writer.start(events, Number(current));
    // Replaced meanwhile by a later attach here: that one owns the session's stream now.
    if (this.held.get(sessionId) !== stream) connection.close();
    return true;
  }

  detach(sessionId: string, connection: McpConnection): void {
    const stream = this.held.get(sessionId);
    if (stream?.writer.connection !== connection) return;
    this.held.delete(sessionId);
    this.release([[sessionId, stream.holder]]);
  }

  holds(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  sendToSession(sessionId: string, json: string): boolean {
    const stream = this.held.get(sessionId);
    if (stream) return stream.writer.connection.send(json);
    // Held by another instance: through the outbox, which reaches it wherever it is.
    if (!this.holders.has(sessionId)) return false;
    this.scripts.run('mcpSend', sessionId, json, this.settings.outboxLength).catch((error: unknown) => {
      this.logger.warn(`Could not send to session ${sessionId.slice(0, 8)}…: ${describeError(error)}`);
    });
    return true;
  }

  heldSessions(): Iterable<string> {
    return this.held.keys();
  }

  openPostStream(sessionId: string | undefined, connection: McpConnection): McpPostStream {
    return this.posts.open(sessionId, connection);
  }

  resumePostStream(sessionId: string, lastEventId: string, connection: McpConnection): Promise<McpPostStreamResume> {
    return this.posts.resume(sessionId, lastEventId, connection);
  }

  onSessionEnded(listener: McpSessionEndListener): void {
    this.ends.listen(listener);
  }

  async drain(): Promise<void> {
    const open = [...this.held.entries()];
    this.held.clear();
    for (const [, stream] of open) stream.writer.connection.close(DRAIN_RETRY_MS);
    this.posts.drain(DRAIN_RETRY_MS);
    await this.releaseNow(open.map(([sessionId, stream]) => [sessionId, stream.holder])).catch((error: unknown) => {
      this.logger.warn(`Could not release the drained streams: ${describeError(error)}`);
    });
  }

  /** Runs one notification's script and writes what it delivered to streams held here. */
  private async fanout(kind: 'u' | 'l', target: string, json: string, coalesceKey: string): Promise<number> {
    const [sessions, deliveries] = await this.scripts.run<[number, string]>(
      'mcpFanout',
      kind,
      target,
      json,
      coalesceKey,
      this.settings.outboxLength,
    );
    this.deliverAll(JSON.parse(deliveries), json);
    return sessions;
  }

  /** A notification published by another instance: its listeners here, its streams here. */
  private onNotification(message: BusMessage): void {
    if (message.from === this.me) return;
    if (message.t === 'u') this.listeners.resourceUpdated(String(message.x));
    else this.listeners.listChanged(message.x as McpListKind);
    this.deliverAll(message.d, String(message.j));
  }

  /** Writes `[sid, seq, holder]` deliveries whose holder is a stream of this instance. */
  private deliverAll(deliveries: unknown, json: string): void {
    if (!Array.isArray(deliveries)) return;
    for (const [sessionId, seq, holder] of deliveries as [string, number, string][]) {
      const stream = this.held.get(sessionId);
      if (stream?.holder === holder) stream.writer.push({ seq, json });
    }
  }

  private async readOutbox(sessionId: string, after: number): Promise<LoggedEvent[]> {
    const rows = await guarded(this.redis.xrange(this.keys.outbox(sessionId), `(${after}-0`, '+'));
    return rows.map(([id, fields]) => ({ seq: Number(id.split('-')[0]), json: fields[1] }));
  }

  /** The connection refused a write (closed, or too slow): later events queue until it resumes. */
  private refused(sessionId: string, holder: string): void {
    const stream = this.held.get(sessionId);
    if (stream?.holder !== holder) return;
    this.held.delete(sessionId);
    this.release([[sessionId, holder]]);
  }

  /** A newer stream of the session, on any instance, replaced this one. */
  private replaced(sessionId: string, holder: string): void {
    const stream = this.held.get(sessionId);
    if (stream?.holder !== holder) return;
    this.held.delete(sessionId);
    stream.writer.connection.close();
  }

  private ended(sessionId: string): void {
    this.holders.forget(sessionId);
    const stream = this.held.get(sessionId);
    this.held.delete(sessionId);
    stream?.writer.connection.close();
  }

  private forget(sessionId: string, stream: HeldStream): void {
    if (this.held.get(sessionId) === stream) this.held.delete(sessionId);
  }

  /** Releases streams in Redis (fire and forget): their sessions' idle clocks restart. */
  private release(pairs: [string, string][]): void {
    this.releaseNow(pairs).catch((error: unknown) => {
      this.logger.warn(`Could not release a stream: ${describeError(error)}`);
    });
  }

  private async releaseNow(pairs: [string, string][]): Promise<void> {
    if (pairs.length === 0) return;
    await this.scripts.run('mcpDetach', Date.now(), ...pairs.flat());
  }

  /** Liveness of this instance, TTLs of the sessions it holds, and the safety poll of their outboxes. */
  private async heartbeat(): Promise<void> {
    const sessions = [...this.held.keys()];
    try {
      const seqs = await this.scripts.run<number[]>(
        'mcpHeartbeat',
        this.settings.heartbeatMs * 3,
        this.settings.ttlMs,
        ...sessions,
      );
      sessions.forEach((sessionId, i) => this.held.get(sessionId)?.writer.behind(seqs[i]));
    } catch (error) {
      this.logger.warn(`Heartbeat failed: ${describeError(error)}`);
    }
  }
}
