import type { McpConnection } from '@nest-mcp/server/backend';
import { getEventId, type LogPosition } from './get-event-id.js';
import type { LoggedEvent } from './ordered-writer.js';

/** What reaches a held GET stream live, in the order its instance heard it. */
export type StreamItem =
  /** An entry of the shared notification log (its audience is decided here, by the subscriptions). */
  | {
      readonly type: 'log';
      /** The log shard it was appended to; `seq` counts within it. */
      readonly shard: number;
      readonly seq: number;
      readonly kind: 'u' | 'l';
      readonly target: string;
      readonly json: string;
    }
  /** An entry of the session's outbox. */
  | { readonly type: 'out'; readonly seq: number; readonly json: string }
  /** The session subscribed to a URI (`on`) or unsubscribed. */
  | {
      readonly type: 'sub';
      readonly uri: string;
      readonly on: boolean;
      /** On a cluster: the head of the URI's log shard its subscriber knew; updates of the URI past it may have been skipped. */
      readonly after?: number;
    };

/** An event the attach script replays, with the two cursors its id carries. */
export interface ReplayedEvent {
  readonly out: number;
  readonly log: LogPosition;
  readonly json: string;
}

/** What a GET stream needs from its instance. */
export interface GetStreamHooks {
  /** Reads the session's outbox after a sequence (the catch-up). */
  readOutbox(after: number): Promise<LoggedEvent[]>;
  /** The latest `resources/updated` JSON of a URI with a sequence of its log shard in (after, upTo] this instance heard. */
  updatedSince(uri: string, after: number, upTo: number): string | undefined;
  /** The log shard a URI's updates go to. */
  logShardOf(uri: string): number;
  /** The connection refused a write (closed, or too slow). */
  refused(): void;
  /** The session's subscriptions changed: the instance's URI index follows. */
  subscribed(uri: string, on: boolean): void;
}

/**
 * One standalone GET stream held by this instance. It writes two logs merged in the order its
 * instance heard them: the session's outbox (its own messages) and the shared notification log
 * (filtered by the session's subscriptions, which it keeps). Each event id is
 * `g:<epoch>-<out>:<log>`, the two cursors written so far (the log's: one sequence per log
 * shard, see get-event-id.ts), so that a resume anywhere replays exactly what came after. Items
 * that arrive before the start, or during a catch-up of the outbox, wait in order; outbox events
 * at or below the last written sequence are dropped, and a jump past the next one starts a
 * catch-up read; log events at or below the last sequence of their shard are dropped (the
 * instance catches up the log for all its streams at once).
 */
export class GetStream {
  private epoch = '';
  private hasStarted = false;
  private out = 0;
  /** Per log shard, the last sequence written (the id's log position). */
  private log: number[] = [];
  /** Per log shard, the last sequence that reached the stream, written or filtered out. */
  private heard: number[] = [];
  private readonly uris = new Set<string>();
  /** Set while the start, a catch-up or a refresh of the subscriptions is in flight. */
  private waiting?: StreamItem[] = [];

  constructor(
    readonly connection: McpConnection,
    /** `<instance> <token>`: how Redis names this stream as the session's holder. */
    readonly holder: string,
    private readonly hooks: GetStreamHooks,
  ) {}

  /** Whether the attach answered (the stream knows its epoch and cursors). */
  get started(): boolean {
    return this.hasStarted;
  }

  /** The URIs the session subscribed to, as far as this stream knows. */
  get subscriptions(): ReadonlySet<string> {
    return this.uris;
  }

  /** Starts the stream: the replay, the cursors it starts from, then what waited. */
  start(
    epoch: string,
    out: number,
    log: LogPosition,
    subscriptions: readonly string[],
    replay: readonly ReplayedEvent[],
  ): void {
    this.epoch = epoch;
    this.hasStarted = true;
    this.log = log.map(() => 0);
    this.heard = log.map(() => 0);
    this.subscribe(subscriptions);
    for (const event of replay) {
      this.log = [...event.log];
      this.write(event.json, event.out);
    }
    this.out = Math.max(this.out, out);
    this.log = this.log.map((n, shard) => Math.max(n, log[shard]));
    this.flush();
  }

  /** A live item. */
  push(item: StreamItem): void {
    if (this.waiting) this.waiting.push(item);
    else this.apply(item);
  }

  /** Holds live items until `resubscribe` (the subscriptions are being read again). */
  suspend(): void {
    this.waiting ??= [];
  }

  /** The subscriptions as read again; then what waited. */
  resubscribe(subscriptions: readonly string[]): void {
    this.subscribe(subscriptions);
    this.flush();
  }

  /** Checks the outbox's current sequence (the safety poll) and catches up when behind. */
  behind(current: number): void {
    if (this.waiting || current <= this.out) return;
    this.waiting = [];
    void this.catchUp();
  }

  private apply(item: StreamItem): void {
    switch (item.type) {
      case 'sub':
        if (item.on === this.uris.has(item.uri)) return;
        if (item.on) this.uris.add(item.uri);
        else this.uris.delete(item.uri);
        this.hooks.subscribed(item.uri, item.on);
        if (item.on && item.after !== undefined) {
          const shard = this.hooks.logShardOf(item.uri);
          const heard = this.heard[shard] ?? 0;
          if (item.after >= heard) return;
          // Heard after a notification of the URI it preceded: that one is written now, with
          // the cursor of the last entry of the URI's shard the stream heard (every entry of
          // that shard up to it is either written or not the session's, so a resume from it
          // replays nothing twice).
          const missed = this.hooks.updatedSince(item.uri, item.after, heard);
          if (missed !== undefined) {
            this.log[shard] = Math.max(this.log[shard], heard);
            this.write(missed, this.out);
          }
        }
        return;
      case 'log':
        if (item.shard >= this.log.length) return;
        this.heard[item.shard] = Math.max(this.heard[item.shard], item.seq);
        if (item.seq <= this.log[item.shard]) return;
        if (item.kind === 'u' && !this.uris.has(item.target)) return;
        this.log[item.shard] = item.seq;
        this.write(item.json, this.out);
        return;
      case 'out':
        if (item.seq <= this.out) return;
        if (item.seq === this.out + 1) {
          this.write(item.json, item.seq);
          return;
        }
        this.waiting = [item];
        void this.catchUp();
    }
  }

  private subscribe(subscriptions: readonly string[]): void {
    const next = new Set(subscriptions);
    for (const uri of [...this.uris]) if (!next.has(uri)) this.apply({ type: 'sub', uri, on: false });
    for (const uri of next) this.apply({ type: 'sub', uri, on: true });
  }

  private async catchUp(): Promise<void> {
    try {
      for (const event of await this.hooks.readOutbox(this.out)) {
        if (event.seq > this.out) this.write(event.json, event.seq);
      }
    } catch {
      // The outbox cannot be read now: what waited is written as it is; the next poll retries.
    }
    this.flush();
  }

  private flush(): void {
    const items = this.waiting ?? [];
    this.waiting = undefined;
    for (let i = 0; i < items.length; i++) {
      this.apply(items[i]);
      // An outbox gap started a catch-up: the rest waits behind it, in order.
      if (this.waiting) {
        (this.waiting as StreamItem[]).push(...items.slice(i + 1));
        return;
      }
    }
  }

  /** Writes an event at outbox cursor `out` and the stream's current log position. */
  private write(json: string, out: number): void {
    this.out = out;
    if (!this.connection.send(json, getEventId(this.epoch, out, this.log))) this.hooks.refused();
  }
}
