import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { McpConnection } from '../../session/mcp-session.interface.js';

/** POST answers kept per session for resumption; older ones are forgotten. */
const STREAMS_PER_SESSION = 16;

interface LoggedEvent {
  readonly seq: number;
  readonly eventId: string;
  readonly message: object;
}

/**
 * The events of one POST's SSE answer, kept so that a client whose connection dropped mid-call
 * can resume with `GET` + `Last-Event-ID: p:<stream>:<n>`: what it missed is replayed, and what
 * the call still sends (its response included) follows live. A dropped connection is not a
 * cancellation: the call runs on.
 */
export class PostStream {
  readonly id = randomBytes(6).toString('base64url');
  private readonly events: LoggedEvent[] = [];
  private seq = 0;
  private target?: McpConnection;
  private done = false;

  constructor(private readonly capacity: number) {}

  get finished(): boolean {
    return this.done;
  }

  /** Records a message and writes it to the current connection, if any. */
  send(message: object): void {
    this.seq += 1;
    const event = { seq: this.seq, eventId: `p:${this.id}:${this.seq}`, message };
    this.events.push(event);
    if (this.events.length > this.capacity) this.events.shift();
    if (this.target && !this.target.send(message, event.eventId)) this.target = undefined;
  }

  /** Routes the rest of the stream to `connection`, after replaying what follows `afterSeq`. */
  resume(connection: McpConnection, afterSeq: number): void {
    for (const event of this.events) if (event.seq > afterSeq) connection.send(event.message, event.eventId);
    if (this.done) connection.close();
    else this.target = connection;
  }

  attach(connection: McpConnection): void {
    this.target = connection;
  }

  /** The response went out: the stream ends, on whatever connection carries it. */
  finish(): void {
    this.done = true;
    this.target?.close();
    this.target = undefined;
  }
}

/** The resumable POST answers of each session (Streamable HTTP resumability). */
@Injectable()
export class PostStreamLog implements OnModuleInit {
  private readonly bySession = new Map<string, Map<string, PostStream>>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly sessions: McpSessionManager,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => {
      this.bySession.delete(sessionId);
    });
  }

  /** Starts the log of a new POST answer of this session. */
  open(sessionId: string): PostStream {
    const streams = this.bySession.get(sessionId) ?? new Map<string, PostStream>();
    this.bySession.set(sessionId, streams);
    const stream = new PostStream(this.options.replayBufferSize);
    streams.set(stream.id, stream);
    if (streams.size > STREAMS_PER_SESSION) streams.delete(streams.keys().next().value!);
    return stream;
  }

  /**
   * The stream and position named by a `p:<stream>:<n>` event id of this session; undefined
   * for any other id (another session's streams are simply not found here).
   */
  find(sessionId: string, lastEventId: string): { stream: PostStream; afterSeq: number } | undefined {
    const match = /^p:([A-Za-z0-9_-]+):(\d+)$/.exec(lastEventId);
    if (!match) return undefined;
    const stream = this.bySession.get(sessionId)?.get(match[1]);
    return stream ? { stream, afterSeq: Number(match[2]) } : undefined;
  }
}
