import { randomBytes } from 'node:crypto';
import {
  McpLogger,
  LIST_CHANGED_JSON,
  ListenerIndex,
  resourceUpdatedJson,
  type McpConnection,
  type McpDeliveryReport,
  type McpFanout,
  type McpListener,
  type McpListKind,
  type McpLiveStreams,
} from '@nest-mcp/server/backend';
import { inBatches } from './batches.js';
import { formatLogPosition, parseGetEventId, parseLogPosition, type LogPosition } from './get-event-id.js';
import { GetStream, type ReplayedEvent, type StreamItem } from './get-stream.js';
import { takeByStamp, type Stamped } from './log-merge.js';
import type { LoggedEvent } from './ordered-writer.js';
import { describeError, guarded } from './redis-errors.js';
import { byBucket, sessionScriptKeys, type RedisKeys, type SessionPart } from './redis-keys.js';
import type { BusMessage, RedisPubSub } from './redis-pubsub.js';
import type { RedisClient, RedisScripts } from './redis-scripts.js';
import type { RemoteHolders } from './remote-holders.js';
import type { SessionEnds } from './session-ends.js';

/** `resources/updated` entries an instance remembers, of all log shards together (see `updatedSince`). */
const RECENT_UPDATES = 1_024;

/** How soon a client whose stream was drained by a shutdown should reconnect. */
const DRAIN_RETRY_MS = 1_000;

/** The updated notification around its URI, for the resync the attach script writes. */
const UPDATED_PREFIX = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":';
const UPDATED_SUFFIX = '}}';

/** What delivery needs to know about its deployment. */
export interface RedisDeliverySettings {
  /** Outbox entries kept per session (`replayBufferSize`). */
  readonly outboxLength: number;
  /** Entries kept in each shard of the shared notification log (`MAXLEN ~`). */
  readonly logLength: number;
  /**
   * Log entries (of all shards together) a cursor may be behind and still replay
   * (`replayWindow`): further behind resyncs. Each shard's read is bounded by it too.
   */
  readonly replayWindow: number;
  /** The session keys' TTL, refreshed by the heartbeat for held sessions. */
  readonly ttlMs: number;
  /** How often the instance proves it lives and polls its streams. */
  readonly heartbeatMs: number;
}

/** The log entry a `u` or `l` bus message announces. */
interface LogEntry {
  /** Its log shard; `seq` counts within it. */
  readonly shard: number;
  readonly seq: number;
  readonly kind: 'u' | 'l';
  readonly target: string;
  readonly json: string;
}

/** A log entry as a resume or a catch-up reads it. */
interface ReadLogEntry extends Stamped {
  readonly seq: number;
  readonly kind: string;
  readonly target: string;
  readonly json: string;
}

/**
 * Fan-out and live streams on Redis, on one state (the streams this instance holds and its URI
 * index of them). A notification is appended once to its shard of the shared notification log
 * (the shard of its URI, or of its list kind) and published once on that shard's channel with
 * its sequence (constant work in Redis, whatever its audience). Each instance keeps an index
 * URI → the streams it holds whose sessions subscribed to it (filled at attach, kept by `sub` messages from the subscribe scripts) and
 * writes each notification to those, and to its own modern listeners (`ListenerIndex`).
 * Messages for one session (server→client requests, a resync) go to its outbox. A stream's
 * event ids carry both cursors (`GetStream`), so a client resumes on any instance.
 *
 * The instance follows each log shard in order (its last sequence heard there): a message past
 * the next one means messages were lost, and the entries between are read from that shard (one
 * XRANGE for all streams) before it; the heartbeat catches up an entry whose message never came.
 * The notifications of one URI (one list) go through one shard, in order; notifications of
 * different URIs may reach a stream in another order than they were sent (on one shard, they do
 * not). After the subscriber reconnected, the held sessions' subscriptions are read again. A held session that
 * Redis no longer has (its `end` message lost) is found by the next heartbeat, or by that read,
 * and its end announced here: a stream outlives its session by one heartbeat at most.
 */
export class RedisDelivery implements McpFanout, McpLiveStreams {
  private readonly logger = new McpLogger('McpRedis');
  private readonly held = new Map<string, GetStream>();
  /** URI → held streams whose sessions subscribed to it. */
  private readonly index = new Map<string, Set<GetStream>>();
  /** Held streams that do not know their subscriptions yet (attaching, or read again): they get every entry. */
  private readonly syncing = new Set<GetStream>();
  private readonly listeners = new ListenerIndex();
  private readonly me: string;
  private heartbeatTimer?: NodeJS.Timeout;
  private stopped = false;
  /** Per log shard, the sequence of the last entry this instance handled; unknown before the first beat. */
  private readonly lastLog: (number | undefined)[];
  /** Per log shard, the head the previous heartbeat saw: older entries not heard of by now were lost. */
  private readonly polledHead: number[];
  /** The last `resources/updated` entries delivered here, oldest first (see `updatedSince`). */
  private readonly recent: LogEntry[] = [];
  /** Per log shard, the sequence of the last entry this instance appended (its own notifications). */
  private readonly appended: number[];
  /** The last stamp this instance gave a notification (see `stamp`). */
  private lastStamp = 0;
  /** A round after a reconnect runs (see afterReconnect); another one is due after it. */
  private reconnecting = false;
  private reconnectAgain = false;
  /** Set while the log is being caught up: delivery messages wait here, in order. */
  private queue?: BusMessage[];

  constructor(
    private readonly scripts: RedisScripts,
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly pubsub: RedisPubSub,
    private readonly ends: SessionEnds,
    private readonly holders: RemoteHolders,
    private readonly settings: RedisDeliverySettings,
  ) {
    this.me = scripts.instanceId;
    this.lastLog = keys.allLogShards().map(() => undefined);
    this.polledHead = keys.allLogShards().map(() => 0);
    this.appended = keys.allLogShards().map(() => 0);
    ends.listen((sessionId) => this.ended(sessionId));
    for (const type of ['u', 'l', 's', 'sub']) pubsub.handle(type, (message) => this.heard(message));
    pubsub.handle('end', (message) => {
      if (message.from !== this.me) this.ends.announce(String(message.sid), message.reason as never);
    });
    pubsub.handle('replaced', (message) => this.replaced(String(message.sid), String(message.holder)));
    pubsub.onReconnect(() => this.afterReconnect());
  }

  /**
   * After the subscriber reconnected (on a cluster: after every change of its subscriptions,
   * which a failover makes several times while the dead master's replica is elected): the held
   * sessions' subscriptions read again and a beat, one round at a time. Reconnects meanwhile
   * make one more round, not one each (they came by the hundred, each waiting for the timeout).
   */
  private afterReconnect(): void {
    if (this.reconnecting) {
      this.reconnectAgain = true;
      return;
    }
    this.reconnecting = true;
    void (async () => {
      try {
        do {
          this.reconnectAgain = false;
          await Promise.all([this.resubscribeHeld(), this.heartbeat()]);
        } while (this.reconnectAgain && !this.stopped);
      } catch (error) {
        this.logger.warn(`Catching up after a reconnect failed: ${describeError(error)}`);
      } finally {
        this.reconnecting = false;
      }
    })();
  }

  /**
   * Delivery messages waiting behind a catch-up of the log (`nest_mcp.delivery.queue.size`):
   * otherwise a message is written to its streams as it is heard.
   */
  get queued(): number {
    return this.queue?.length ?? 0;
  }

  /**
   * Starts the heartbeat (liveness, TTLs of held sessions, safety poll); the first beat is awaited.
   * The timer is unref'd (it never keeps the process alive on its own) and owned: `stop` clears
   * it, and a `stop` while the first beat runs means it is never set.
   */
  async start(): Promise<void> {
    await this.heartbeat();
    if (this.stopped) return;
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.settings.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  /** No more beats: the instance is closing. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  async resourceUpdated(uri: string): Promise<McpDeliveryReport> {
    const json = resourceUpdatedJson(uri);
    const listeners = this.listeners.resourceUpdated(uri);
    const sessions = await this.fanout('u', uri, json);
    return { sessions, listeners };
  }

  async listChanged(kind: McpListKind): Promise<McpDeliveryReport> {
    const json = LIST_CHANGED_JSON[kind];
    const listeners = this.listeners.listChanged(kind);
    const sessions = await this.fanout('l', kind, json);
    return { sessions, listeners };
  }

  addListener(listener: McpListener): () => void {
    return this.listeners.add(listener);
  }

  async attach(sessionId: string, connection: McpConnection, lastEventId?: string): Promise<boolean> {
    const holder = `${this.me} ${randomBytes(6).toString('base64url')}`;
    const stream: GetStream = new GetStream(connection, holder, {
      readOutbox: (after) => this.readOutbox(sessionId, after),
      updatedSince: (uri, after, upTo) => this.updatedSince(uri, after, upTo),
      logShardOf: (uri) => this.keys.logShardOf(uri),
      refused: () => this.refused(sessionId, holder),
      // A stream no longer held (replaced, closed) never enters the index again.
      subscribed: (uri, on) => {
        if (!on || this.held.get(sessionId) === stream) this.indexed(stream, uri, on);
      },
    });
    const previous = this.held.get(sessionId);
    // Registered before the script runs: live items that overtake its reply wait in the stream
    // (it gets every log entry while it waits, and filters them once it knows its URIs).
    if (previous) this.unindex(previous);
    this.held.set(sessionId, stream);
    this.syncing.add(stream);
    const shards = this.keys.allLogShards();
    const last = lastEventId === undefined ? undefined : parseGetEventId(lastEventId, shards.length);
    const lastOut = lastEventId === undefined ? '-' : (last?.out ?? '');
    const slot = this.sessionKeys(sessionId, ['hash', 'out', 'subs']);
    let reply: 0 | (string | number)[];
    let logReplies: (string | number)[][];
    // What this instance had heard of the log when it asked for the heads (see followLog).
    const heardBefore = [...this.lastLog];
    try {
      // Among the list-change audience before it holds a stream: an end that meets this attach
      // takes it out again (its pending end), whichever step comes first.
      await guarded(this.redis.sadd(this.keys.streamed, sessionId));
      // The session's slot and each log shard's slot, in parallel: one round trip.
      [reply, logReplies] = await Promise.all([
        this.scripts.run<0 | (string | number)[]>(
          'mcpAttach',
          slot,
          sessionId,
          holder,
          lastOut,
          last?.epoch ?? '',
          this.settings.outboxLength,
          this.settings.heartbeatMs * 3,
        ),
        Promise.all(
          shards.map((shard) =>
            this.scripts.run<(string | number)[]>(
              'mcpLogRead',
              [this.keys.log(shard), this.keys.logHead(shard)],
              lastOut === '-' ? '' : (last?.log[shard] ?? ''),
              this.settings.replayWindow,
            ),
          ),
        ),
      ]);
    } catch (error) {
      this.forget(sessionId, stream);
      throw error;
    }
    if (reply === 0) {
      this.forget(sessionId, stream);
      this.redis.srem(this.keys.streamed, sessionId).catch(() => undefined);
      return false;
    }
    if (previous && previous.connection !== connection) previous.connection.close();
    const [epoch, seq, count, ...rest] = reply;
    const subscriptions = rest.slice(0, Number(count)).map(String);
    const heads = logReplies.map((logReply) => Number(logReply[0]));
    let replay: ReplayedEvent[] | undefined =
      lastOut === '-'
        ? []
        : last && this.replayed(rest.slice(Number(count)), logReplies, heads, last.out, last.log, subscriptions);
    let out = Number(seq);
    if (!replay) {
      try {
        const resync = await this.scripts.run<0 | (string | number)[]>(
          'mcpResync',
          slot,
          sessionId,
          this.settings.outboxLength,
          formatLogPosition(heads),
          UPDATED_PREFIX,
          UPDATED_SUFFIX,
          ...Object.values(LIST_CHANGED_JSON),
        );
        if (resync === 0) {
          this.forget(sessionId, stream);
          return false;
        }
        const [first, ...jsons] = resync;
        replay = jsons.map((json, i) => ({ out: Number(first) + i, log: heads, json: String(json) }));
        out = Number(first) + jsons.length - 1;
      } catch (error) {
        this.forget(sessionId, stream);
        throw error;
      }
    }
    for (const shard of shards) this.followLog(shard, heads[shard], heardBefore[shard]);
    this.syncing.delete(stream);
    stream.start(String(epoch), out, heads, subscriptions, replay);
    // Replaced meanwhile by a later attach here: that one owns the session's stream now.
    if (this.held.get(sessionId) !== stream) {
      this.unindex(stream);
      connection.close();
    }
    return true;
  }

  /**
   * What a resume replays, from the outbox entries after the client's outbox cursor and each log
   * shard's entries after the client's position there: those that concern the session (its
   * URIs, every list change), coalesced (the first of each URI or list is kept), merged in the
   * order they were written: the shards' entries by their writers' stamps (each shard's in its
   * own order), and an outbox entry after the entries of each shard up to the head its writer
   * knew there (it records the heads when it was appended). Undefined, meaning a resync,
   * when the outbox or a log shard no longer holds what came after its cursor, when the cursor
   * is further behind the heads than the replay window (all shards together, as with one log),
   * or when more of the session's events came than its replay buffer (`replayBufferSize`)
   * keeps: beyond retention, as with one outbox per session. The reads were bounded by the
   * scripts (the outbox length, the replay window per shard).
   */
  private replayed(
    outbox: readonly (string | number)[],
    logs: readonly (readonly (string | number)[])[],
    heads: LogPosition,
    lastOut: number,
    lastLog: LogPosition,
    subscriptions: readonly string[],
  ): ReplayedEvent[] | undefined {
    if (Number(outbox[0]) !== 1 || logs.some((log) => Number(log[1]) !== 1)) return undefined;
    let behind = 0;
    for (let shard = 0; shard < heads.length; shard++) behind += heads[shard] - lastLog[shard];
    if (behind > this.settings.replayWindow) return undefined;
    const shards = heads.length;
    const outRows: { seq: number; log: number[]; json: string }[] = [];
    for (let i = 1; i + 2 < outbox.length; i += 3) {
      outRows.push({
        seq: Number(outbox[i]),
        log: parseLogPosition(String(outbox[i + 1]), shards),
        json: String(outbox[i + 2]),
      });
    }
    const entries = logs.map((log) => {
      const rows: ReadLogEntry[] = [];
      for (let i = 2; i + 4 < log.length; i += 5) {
        rows.push({
          seq: Number(log[i]),
          kind: String(log[i + 1]),
          target: String(log[i + 2]),
          json: String(log[i + 3]),
          stamp: Number(log[i + 4]) || 0,
        });
      }
      return rows;
    });
    const subscribed = new Set(subscriptions);
    const seen = new Set<string>();
    const events: ReplayedEvent[] = [];
    const next = logs.map(() => 0);
    let curOut = lastOut;
    const curLog = [...lastLog];
    let matched = outRows.length;
    const take = (shard: number, entry: ReadLogEntry) => {
      // Entries not the session's leave the cursor where it is, as on the live stream: a resume
      // from it reads them again and skips them again.
      if (entry.kind !== 'l' && !subscribed.has(entry.target)) return;
      curLog[shard] = entry.seq;
      matched += 1;
      if (seen.has(entry.kind + entry.target)) return;
      seen.add(entry.kind + entry.target);
      events.push({ out: curOut, log: [...curLog], json: entry.json });
    };
    for (const row of outRows) {
      takeByStamp(entries, next, (shard, entry) => entry.seq <= row.log[shard], take);
      curOut = row.seq;
      events.push({ out: curOut, log: [...curLog], json: row.json });
    }
    takeByStamp(entries, next, () => true, take);
    return matched > this.settings.outboxLength ? undefined : events;
  }

  detach(sessionId: string, connection: McpConnection): void {
    const stream = this.held.get(sessionId);
    if (stream?.connection !== connection) return;
    this.forget(sessionId, stream);
    this.release([[sessionId, stream.holder]]);
  }

  holds(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  send(sessionId: string, json: string): boolean {
    const stream = this.held.get(sessionId);
    if (stream) return stream.connection.send(json);
    // Held by another instance: through the outbox, which reaches it wherever it is.
    if (!this.holders.has(sessionId)) return false;
    const slot = this.sessionKeys(sessionId, ['hash', 'out']);
    // Where a replay places the message among the log's entries (the log is in other slots,
    // not read here).
    this.scripts
      .run('mcpSend', slot, sessionId, json, this.settings.outboxLength, formatLogPosition(this.knownHeads()))
      .catch((error: unknown) => {
        this.logger.warn(`Could not send to session ${sessionId.slice(0, 8)}…: ${describeError(error)}`);
      });
    return true;
  }

  /** Per log shard, its head as this instance knows it: heard, or appended itself. */
  knownHeads(): number[] {
    return this.appended.map((appended, shard) => Math.max(this.lastLog[shard] ?? 0, appended));
  }

  /** The head of a URI's log shard as this instance knows it (what a subscribe's note carries). */
  knownHeadOf(uri: string): number {
    const shard = this.keys.logShardOf(uri);
    return Math.max(this.lastLog[shard] ?? 0, this.appended[shard]);
  }

  heldSessions(): Iterable<string> {
    return this.held.keys();
  }

  async drain(): Promise<void> {
    const open = [...this.held.entries()];
    this.held.clear();
    this.index.clear();
    this.syncing.clear();
    for (const [, stream] of open) stream.connection.close(DRAIN_RETRY_MS);
    await this.releaseNow(open.map(([sessionId, stream]) => [sessionId, stream.holder])).catch((error: unknown) => {
      this.logger.warn(`Could not release the drained streams: ${describeError(error)}`);
    });
  }

  /**
   * Runs one notification's script (the entry in its log shard and its one publish; delivery
   * follows that shard's channel) and, in the same round trip, counts its audience (the URI's
   * subscribers, or the sessions that held a stream: each set in its own slot).
   */
  private async fanout(kind: 'u' | 'l', target: string, json: string): Promise<number> {
    const shard = this.keys.logShardOf(target);
    const [n, audience] = await Promise.all([
      this.scripts.run<number>(
        'mcpFanout',
        [this.keys.log(shard), this.keys.logHead(shard)],
        kind,
        target,
        json,
        this.settings.logLength,
        shard,
        this.stamp(),
      ),
      guarded(this.redis.scard(kind === 'u' ? this.keys.subscribers(target) : this.keys.streamed)),
    ]);
    this.appended[shard] = Math.max(this.appended[shard], n);
    return audience;
  }

  /**
   * The order of a notification among the deployment's, for a resume's merge of the shards: the
   * time in microseconds, strictly increasing on this instance (so its own notifications replay
   * in the order it sent them; those of several instances in the order of their clocks).
   */
  private stamp(): number {
    this.lastStamp = Math.max(Date.now() * 1_000, this.lastStamp + 1);
    return this.lastStamp;
  }

  /** A delivery message (`u`, `l`, `s`, `sub`): handled in order, behind a catch-up of the log. */
  private heard(message: BusMessage): void {
    if (this.queue) this.queue.push(message);
    else this.handle(message);
  }

  private handle(message: BusMessage): void {
    if (message.t === 's' || message.t === 'sub') {
      const stream = this.held.get(String(message.sid));
      if (!stream || stream.holder !== message.holder) return;
      stream.push(
        message.t === 's'
          ? { type: 'out', seq: Number(message.seq), json: String(message.j) }
          : {
              type: 'sub',
              uri: String(message.uri),
              on: message.on === 1,
              ...(typeof message.n === 'number' ? { after: message.n } : {}),
            },
      );
      return;
    }
    // Messages of instances that write one log name no shard: theirs is shard 0.
    const shard = message.s === undefined ? 0 : Number(message.s);
    if (!(Number.isInteger(shard) && shard >= 0 && shard < this.lastLog.length)) return;
    const entry: LogEntry = {
      shard,
      seq: Number(message.n),
      kind: message.t === 'u' ? 'u' : 'l',
      target: String(message.x),
      json: String(message.j),
    };
    const last = this.lastLog[shard];
    if (last !== undefined && entry.seq > last + 1) {
      // Messages were lost (the subscriber reconnected): the entries between come from the shard.
      this.queue = [message];
      void this.catchUp(new Map([[shard, entry.seq - 1]]));
      return;
    }
    if (message.from !== this.me && entry.seq > (last ?? 0)) {
      if (entry.kind === 'u') this.listeners.resourceUpdated(entry.target);
      else this.listeners.listChanged(entry.target as McpListKind);
    }
    this.deliver(entry);
  }

  /** One log entry to the held streams it may concern (each filters by its subscriptions). */
  private deliver(entry: LogEntry): void {
    if (entry.seq <= (this.lastLog[entry.shard] ?? 0)) return;
    this.lastLog[entry.shard] = entry.seq;
    if (entry.kind === 'u') {
      this.recent.push(entry);
      if (this.recent.length > RECENT_UPDATES) this.recent.shift();
    }
    const item: StreamItem = { type: 'log', ...entry };
    if (entry.kind === 'l') {
      for (const stream of this.held.values()) stream.push(item);
      return;
    }
    const subscribed = this.index.get(entry.target);
    if (subscribed) for (const stream of subscribed) stream.push(item);
    // Streams still learning their subscriptions get everything, in order.
    for (const stream of this.syncing) if (!subscribed?.has(stream)) stream.push(item);
  }

  /**
   * Reads the log entries this instance missed, per shard up to the sequence given (the shards'
   * reads sent together), and delivers them before what waits in the queue. When they are gone
   * from a shard (or Redis cannot be read), the held streams are closed with a retry hint: their
   * clients resume with Last-Event-ID, and the attach replays or resyncs exactly.
   */
  private async catchUp(upTo: ReadonlyMap<number, number>): Promise<void> {
    this.queue ??= [];
    const reads = [...upTo]
      .map(([shard, to]) => ({ shard, from: (this.lastLog[shard] ?? 0) + 1, to }))
      .filter(({ from, to }) => from <= to);
    if (this.held.size > 0 && reads.length > 0) {
      try {
        const replies = await guarded(
          Promise.all(
            reads.map(({ shard, from, to }) => this.redis.xrange(this.keys.log(shard), `${from}-0`, `${to}-0`)),
          ),
        );
        reads.forEach(({ shard, from, to }, r) => {
          const rows = replies[r];
          if (rows.length === 0 || Number(rows[0][0].split('-')[0]) !== from) {
            throw new Error(`entries ${from}..${to} of log shard ${shard} were trimmed`);
          }
        });
        const entries = replies.map((rows) =>
          rows.map(([id, fields]): ReadLogEntry => ({
            seq: Number(id.split('-')[0]),
            kind: fields[1],
            target: fields[3],
            json: fields[5],
            stamp: Number(fields[7]) || 0,
          })),
        );
        // Several shards' entries in the order they were written, as a resume would replay them.
        takeByStamp(
          entries,
          entries.map(() => 0),
          () => true,
          (r, entry) =>
            this.deliver({
              shard: reads[r].shard,
              seq: entry.seq,
              kind: entry.kind === 'u' ? 'u' : 'l',
              target: entry.target,
              json: entry.json,
            }),
        );
      } catch (error) {
        this.logger.warn(`Could not catch up the notification log: ${describeError(error)}; streams reconnect`);
        this.closeHeld();
      }
    }
    for (const [shard, to] of upTo) this.lastLog[shard] = Math.max(this.lastLog[shard] ?? 0, to);
    const queued = this.queue;
    this.queue = undefined;
    for (let i = 0; i < queued.length; i++) {
      this.handle(queued[i]);
      if (this.queue) {
        (this.queue as BusMessage[]).push(...queued.slice(i + 1));
        return;
      }
    }
  }

  /**
   * A log shard's head as Redis reports it: where this instance starts following the shard, or,
   * when the head went back (Redis restarted empty, the shard was deleted, a failover lost its
   * last entries), where it starts again. `heardBefore` is what this instance had heard of the
   * shard when it asked for the head: a message heard while the reply was on its way is newer
   * than that head, and is no sign of a restart (taking it for one dropped the next notifications).
   */
  private followLog(shard: number, head: number, heardBefore: number | undefined): void {
    if (heardBefore !== undefined && head < heardBefore) {
      this.logger.warn(`The notification log restarted (shard ${shard}: head ${head}, last heard ${heardBefore})`);
      this.lastLog[shard] = undefined;
      this.polledHead[shard] = 0;
      this.appended[shard] = 0;
    }
    this.lastLog[shard] ??= head;
  }

  private closeHeld(): void {
    const open = [...this.held.entries()];
    for (const [sessionId, stream] of open) {
      this.forget(sessionId, stream);
      stream.connection.close(DRAIN_RETRY_MS);
    }
    this.release(open.map(([sessionId, stream]) => [sessionId, stream.holder]));
  }

  /**
   * After the subscriber reconnected: (un)subscriptions published meanwhile were lost, and so
   * may be the end of a held session, which is announced here (see `lostEnd`).
   */
  private async resubscribeHeld(): Promise<void> {
    const open = [...this.held.entries()];
    if (open.length === 0) return;
    for (const [, stream] of open) {
      stream.suspend();
      this.syncing.add(stream);
    }
    const lists = new Map<GetStream, string | 0>();
    try {
      const batches = this.perBucket(open);
      const replies = await Promise.all(
        batches.map(([tag, batch]) =>
          this.scripts.run<(string | 0)[]>(
            'mcpHeldSubscriptions',
            sessionScriptKeys(
              this.keys,
              tag,
              batch.map(([sessionId]) => sessionId),
              ['hash', 'subs'],
            ),
            ...batch.map(([sessionId]) => sessionId),
          ),
        ),
      );
      batches.forEach(([, batch], b) => batch.forEach(([, stream], i) => lists.set(stream, replies[b][i])));
    } catch (error) {
      this.logger.warn(`Could not read the held sessions' subscriptions: ${describeError(error)}`);
    }
    open.forEach(([sessionId, stream]) => {
      this.syncing.delete(stream);
      const list = lists.get(stream);
      if (list === 0) {
        this.lostEnd(sessionId, stream);
        return;
      }
      // A read that failed keeps what the stream knew; an empty set comes back from Lua as {}.
      const parsed: unknown = list === undefined ? undefined : JSON.parse(list);
      stream.resubscribe(
        parsed === undefined ? [...stream.subscriptions] : Array.isArray(parsed) ? parsed.map(String) : [],
      );
    });
  }

  /**
   * A held session that Redis no longer has: it ended and its `end` message was lost (the
   * subscriber was away), or Redis lost it. Announced here as the message would have been, so
   * the stream closes and every listener of this instance hears it; the reason went with the
   * message, and 'expired' is what an instance that finds a session gone reports. A stream
   * whose attach has not answered yet is left to it (the attach finds the session gone itself).
   */
  private lostEnd(sessionId: string, stream: GetStream): void {
    if (this.held.get(sessionId) !== stream || !stream.started) return;
    this.ends.announce(sessionId, 'expired');
  }

  private indexed(stream: GetStream, uri: string, on: boolean): void {
    let streams = this.index.get(uri);
    if (on) {
      if (!streams) this.index.set(uri, (streams = new Set()));
      streams.add(stream);
      return;
    }
    streams?.delete(stream);
    if (streams?.size === 0) this.index.delete(uri);
  }

  private unindex(stream: GetStream): void {
    for (const uri of stream.subscriptions) this.indexed(stream, uri, false);
  }

  /**
   * The latest `resources/updated` of a URI this instance delivered with a sequence of the URI's
   * log shard in (after, upTo], from its memory of the last ones (all shards together, so the
   * memory spans the same time whatever the number of shards): what a stream skipped before it
   * heard, on a cluster, of a subscription made before that notification (the two messages came
   * through different shards). The gap is the time between two messages, so the memory covers it.
   */
  private updatedSince(uri: string, after: number, upTo: number): string | undefined {
    const shard = this.keys.logShardOf(uri);
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const entry = this.recent[i];
      // One shard's entries are remembered in their order (other shards' interleave).
      if (entry.shard !== shard) continue;
      if (entry.seq <= after) return undefined;
      if (entry.seq <= upTo && entry.target === uri) return entry.json;
    }
    return undefined;
  }

  private async readOutbox(sessionId: string, after: number): Promise<LoggedEvent[]> {
    const rows = await guarded(this.redis.xrange(this.keys.outbox(sessionId), `(${after}-0`, '+'));
    return rows.map(([id, fields]) => ({ seq: Number(id.split('-')[0]), json: fields[1] }));
  }

  /** The connection refused a write (closed, or too slow): later events queue until it resumes. */
  private refused(sessionId: string, holder: string): void {
    const stream = this.held.get(sessionId);
    if (stream?.holder !== holder) return;
    this.forget(sessionId, stream);
    this.release([[sessionId, holder]]);
  }

  /** A newer stream of the session, on any instance, replaced this one. */
  private replaced(sessionId: string, holder: string): void {
    const stream = this.held.get(sessionId);
    if (stream?.holder !== holder) return;
    this.forget(sessionId, stream);
    stream.connection.close();
  }

  private ended(sessionId: string): void {
    this.holders.forget(sessionId);
    const stream = this.held.get(sessionId);
    if (stream) this.forget(sessionId, stream);
    stream?.connection.close();
  }

  private forget(sessionId: string, stream: GetStream): void {
    this.unindex(stream);
    this.syncing.delete(stream);
    if (this.held.get(sessionId) === stream) this.held.delete(sessionId);
  }

  /** Releases streams in Redis (fire and forget): their sessions' idle clocks restart. */
  private release(pairs: [string, string][]): void {
    this.releaseNow(pairs).catch((error: unknown) => {
      this.logger.warn(`Could not release a stream: ${describeError(error)}`);
    });
  }

  private async releaseNow(pairs: [string, string][]): Promise<void> {
    await Promise.all(
      this.perBucket(pairs).map(([tag, batch]) =>
        this.scripts.run(
          'mcpDetach',
          sessionScriptKeys(
            this.keys,
            tag,
            batch.map(([sessionId]) => sessionId),
            ['hash'],
          ),
          Date.now(),
          ...batch.flat(),
        ),
      ),
    );
  }

  /** The keys a script about one session declares: its bucket's, and the parts it touches. */
  private sessionKeys(sessionId: string, parts: readonly SessionPart[]): string[] {
    return sessionScriptKeys(this.keys, this.keys.bucketOf(sessionId), [sessionId], parts);
  }

  /** Items keyed by session, cut into one script call per bucket (its slot) and 500 sessions. */
  private perBucket<T extends [string, unknown]>(items: readonly T[]): [string, T[]][] {
    const calls: [string, T[]][] = [];
    for (const [tag, group] of byBucket(this.keys, items, ([sessionId]) => sessionId)) {
      for (const batch of inBatches(group)) calls.push([tag, batch]);
    }
    return calls;
  }

  /**
   * One beat (the timer runs one every `heartbeatMs`): liveness of this instance, TTLs of the
   * sessions it holds, ends it missed, and the safety poll: each held outbox, and each log shard
   * at instance level: an entry the previous beat saw but this instance has not heard of by now
   * lost its message, and is read from the shard (entries newer than that may still be on their
   * way, behind (un)subscriptions that must come first). One script call per 500 held
   * sessions, all sent in this turn.
   */
  async heartbeat(): Promise<void> {
    if (this.stopped) return;
    const streams = [...this.held.entries()];
    const liveness = this.settings.heartbeatMs * 3;
    const batches = this.perBucket(streams);
    const heardBefore = [...this.lastLog];
    const shards = this.keys.allLogShards();
    try {
      // The liveness key (the task store's slot), each log shard's head (its slot) and each
      // bucket's held sessions, all sent in this turn.
      const [, heads, ...replies] = await Promise.all([
        this.scripts.run(
          'mcpBeat',
          [this.keys.instance(this.me), this.keys.lastBeat, this.keys.leaseGrace],
          liveness,
          // Beats of this instance come every heartbeatMs: twice that without any beat is a gap.
          this.settings.heartbeatMs * 2,
        ),
        guarded(Promise.all(shards.map((shard) => this.redis.get(this.keys.logHead(shard))))).then((values) =>
          values.map((value) => Number(value ?? 0)),
        ),
        ...batches.map(([tag, batch]) =>
          this.scripts.run<number[]>(
            'mcpHeartbeat',
            sessionScriptKeys(
              this.keys,
              tag,
              batch.map(([sessionId]) => sessionId),
              ['hash', 'subs', 'out'],
            ),
            liveness,
            this.settings.ttlMs,
            ...batch.map(([sessionId]) => sessionId),
          ),
        ),
      ]);
      batches.forEach(([, batch], b) =>
        batch.forEach(([sessionId, stream], i) => {
          const seq = replies[b][i];
          if (seq === -1) this.lostEnd(sessionId, stream);
          else if (this.held.get(sessionId) === stream) stream.behind(seq);
        }),
      );
      const missed = new Map<number, number>();
      for (const shard of shards) {
        this.followLog(shard, heads[shard], heardBefore[shard]);
        if (this.polledHead[shard] > this.lastLog[shard]!) missed.set(shard, this.polledHead[shard]);
        this.polledHead[shard] = heads[shard];
      }
      if (!this.queue && missed.size > 0) void this.catchUp(missed);
    } catch (error) {
      this.logger.warn(`Heartbeat failed: ${describeError(error)}`);
    }
  }
}
