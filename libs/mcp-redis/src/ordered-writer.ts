import type { McpConnection } from '@nest-mcp/server/backend';

/** One logged event: its sequence in its log and its JSON. */
export interface LoggedEvent {
  readonly seq: number;
  readonly json: string;
}

/**
 * Writes the events of one log (a session's outbox, or a POST answer's log) to a connection in
 * order, exactly once, whatever order they arrive in: live events come over pub/sub, which may
 * overtake the reply that started the stream, lose a message, or repeat one. Events at or below
 * the last written sequence are dropped; a jump past the next one starts a catch-up read of the
 * log, during which live events wait in a buffer.
 */
export class OrderedWriter {
  private last = 0;
  /** Set while the start or a catch-up is in flight: live events wait here. */
  private waiting?: LoggedEvent[] = [];

  constructor(
    readonly connection: McpConnection,
    private readonly eventId: (seq: number) => string,
    /** Reads the log after a sequence (the catch-up). */
    private readonly readAfter: (seq: number) => Promise<LoggedEvent[]>,
    /** Called when the connection refuses a write (closed, or too slow). */
    private readonly onRefused: () => void,
  ) {}

  /** The sequence of the last event written. */
  get lastSeq(): number {
    return this.last;
  }

  /** Starts the stream: writes what the start read returned, up to `upTo`, then what waited. */
  start(events: readonly LoggedEvent[], upTo: number): void {
    for (const event of events) this.write(event);
    this.last = Math.max(this.last, upTo);
    this.flush();
  }

  /** A live event. */
  push(event: LoggedEvent): void {
    if (this.waiting) {
      this.waiting.push(event);
      return;
    }
    if (event.seq <= this.last) return;
    if (event.seq === this.last + 1) {
      this.write(event);
      return;
    }
    this.waiting = [event];
    void this.catchUp();
  }

  /** Checks the log's current sequence (the safety poll) and catches up when behind. */
  behind(current: number): void {
    if (this.waiting || current <= this.last) return;
    this.waiting = [];
    void this.catchUp();
  }

  private async catchUp(): Promise<void> {
    try {
      for (const event of await this.readAfter(this.last)) this.write(event);
    } catch {
      // The log cannot be read now: what waited is written as it is; the next poll retries.
    }
    this.flush();
  }

  private flush(): void {
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    for (const event of waiting.sort((a, b) => a.seq - b.seq)) {
      if (event.seq > this.last) this.write(event);
    }
  }

  private write(event: LoggedEvent): void {
    if (event.seq <= this.last) return;
    this.last = event.seq;
    if (!this.connection.send(event.json, this.eventId(event.seq))) this.onRefused();
  }
}
