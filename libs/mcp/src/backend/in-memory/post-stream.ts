import { randomBytes } from 'node:crypto';
import type { McpConnection } from '../mcp-session.store.js';
import type { McpPostStream, McpPostStreamResume } from '../mcp-post-streams.js';

interface LoggedEvent {
  readonly seq: number;
  readonly json: string;
}

const POST_EVENT_ID = /^p:([A-Za-z0-9_-]+):(\d+)$/;

/** The stream id and position named by a `p:<stream>:<n>` event id; undefined for any other id. */
export function parsePostEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const match = POST_EVENT_ID.exec(eventId);
  if (!match) return undefined;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { streamId: match[1], seq } : undefined;
}

/**
 * The events of one POST's SSE answer (`p:<stream>:<n>` ids), the last `capacity` of them kept so
 * that a client whose connection dropped mid-call can resume with `GET` + `Last-Event-ID`: what
 * it missed is replayed, and what the call still sends (its response included) follows live.
 * `onFinish` is told once, when the call finished the stream.
 */
export class PostStream implements McpPostStream {
  readonly id = randomBytes(6).toString('base64url');
  private readonly events: LoggedEvent[] = [];
  private seq = 0;
  private done = false;
  /** The target is a connection a resume gave the stream (not the POST's own). */
  private resumed = false;

  constructor(
    private readonly capacity: number,
    private target: McpConnection | undefined,
    private readonly onFinish?: () => void,
  ) {}

  get finished(): boolean {
    return this.done;
  }

  send(json: string): void {
    this.seq += 1;
    this.events.push({ seq: this.seq, json });
    if (this.events.length > this.capacity) this.events.shift();
    if (this.target && !this.target.send(json, this.eventId(this.seq))) this.target = undefined;
  }

  finish(): void {
    if (this.done) return;
    this.done = true;
    this.end();
    this.onFinish?.();
  }

  /** Closes the connection that carries the stream (its session ended); later events go nowhere. */
  end(): void {
    this.target?.close();
    this.target = undefined;
  }

  /**
   * Graceful shutdown: a connection a resume gave the stream closes with a `retry:` hint; the
   * events go on being kept, so the client resumes again. The POST's own connection is the
   * transport's to close.
   */
  drain(retryMs: number): void {
    if (!this.resumed) return;
    this.target?.close(retryMs);
    this.target = undefined;
  }

  /**
   * Routes the rest of the stream to `connection` after replaying what follows `afterSeq`; the
   * connection it supersedes is closed. A position older than the kept history is a gap: the
   * events in between are gone, and replaying the rest would hide that.
   */
  resume(connection: McpConnection, afterSeq: number): McpPostStreamResume {
    if (afterSeq > this.seq) return 'unknown';
    const oldest = this.events[0]?.seq ?? this.seq + 1;
    if (afterSeq < oldest - 1) return 'gap';
    const superseded = this.target;
    this.target = undefined;
    if (superseded && superseded !== connection) superseded.close();
    for (const event of this.events) if (event.seq > afterSeq) connection.send(event.json, this.eventId(event.seq));
    if (this.done) connection.close();
    else {
      this.target = connection;
      this.resumed = true;
    }
    return 'resumed';
  }

  private eventId(seq: number): string {
    return `p:${this.id}:${seq}`;
  }
}
