import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_LIVE_STREAMS, MCP_POST_STREAMS } from '../../backend/mcp-backend.tokens.js';
import type { McpLiveStreams } from '../../backend/mcp-live-streams.js';
import type { McpPostStream, McpPostStreams } from '../../backend/mcp-post-streams.js';
import type { McpSessionRecord } from '../../backend/mcp-session.store.js';
import { McpSessionNotFoundException, McpStreamHistoryLostException } from '../../errors/mcp-transport.exceptions.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import { callerKeyOf } from '../../auth/caller-key.js';
import { McpEventStreams } from './event-streams.js';
import { SseConnection } from './sse-connection.js';
import { SseStream } from './sse.stream.js';

/**
 * The event streams of Streamable HTTP: a session's GET stream (attached to the backend's live
 * streams, or resuming a POST answer from `Last-Event-ID`) and the SSE answer of a POST. Each
 * is held under its caller's stream bound and ends with its session, at shutdown, or when the
 * token that opened it expires.
 */
@Injectable()
export class McpHttpStreams {
  /** Standalone GET streams open now (a resumed POST answer's GET included). */
  private gets = 0;

  constructor(
    @McpOptions('transport') private readonly options: McpOptionGroup<'transport'>,
    @Inject(MCP_LIVE_STREAMS) private readonly liveStreams: McpLiveStreams,
    @Inject(MCP_POST_STREAMS) private readonly postStreams: McpPostStreams,
    private readonly eventStreams: McpEventStreams,
  ) {}

  get heldGets(): number {
    return this.gets;
  }

  /** At shutdown: the POST answer streams close (the GET streams are the backend's). */
  drain(): void {
    this.eventStreams.drain();
  }

  /** A related message for a JSON-only client: only its session's GET stream can carry it. */
  sendToSession(sessionId: string, json: string): boolean {
    return this.liveStreams.send(sessionId, json);
  }

  /**
   * The GET stream of `session`: resumes the POST answer `lastEventId` names (replayed, then
   * carried to its end), or attaches as the session's live stream (replaying what the backend
   * logged after `lastEventId`). Throws when the history is gone or the session ended meanwhile.
   */
  async openGet(
    req: IncomingMessage,
    res: ServerResponse,
    session: McpSessionRecord,
    auth: McpPrincipal | undefined,
    lastEventId: string | undefined,
  ): Promise<void> {
    const stream = this.sseStream(res);
    const sessionId = session.id;
    const caller = callerKeyOf(auth, req);
    // The GETs of one session share a place: a reconnect replacing a stream that is still
    // closing is not refused.
    this.eventStreams.claim(caller, sessionId);
    this.gets += 1;
    const connection = new SseConnection(stream, { 'MCP-Session-Id': sessionId });
    // One close callback, held as long as the stream: its place, the count, and the live
    // stream's detach (once it attaches).
    let attached = false;
    stream.onClose(() => {
      this.eventStreams.release(caller, sessionId);
      this.gets -= 1;
      if (attached) this.liveStreams.detach(sessionId, connection);
    });

    if (lastEventId !== undefined) {
      // Resuming a POST answer: replay it and carry the rest of it (its response included).
      const resumed = await this.postStreams.resume(session.id, lastEventId, connection);
      if (resumed === 'resumed') {
        if (connection.open()) this.eventStreams.endWithToken(stream, auth);
        return;
      }
      if (resumed === 'gap') throw new McpStreamHistoryLostException(lastEventId);
    }
    attached = true;
    if (await this.liveStreams.attach(session.id, connection, lastEventId)) {
      // Closed while it attached (the client left): its detach came first and found nothing,
      // so the session would stay held, and never idle, by a stream that is gone.
      if (stream.closed) this.liveStreams.detach(session.id, connection);
      else if (connection.open()) this.eventStreams.endWithToken(stream, auth);
      return;
    }
    // The session ended while the stream was being set up (a DELETE raced it).
    stream.close();
    throw new McpSessionNotFoundException();
  }

  /**
   * Opens the SSE answer of a POST. With a live session it is logged, so a client that loses
   * the connection can resume it with `Last-Event-ID`; without one it only writes. `onClose`
   * hears the stream close, however it closes. It ends with its session, at shutdown, or when
   * the token of `auth` expires.
   */
  openPostAnswer(
    res: ServerResponse,
    session: McpSessionRecord | undefined,
    auth: McpPrincipal | undefined,
    onClose?: () => void,
  ): McpPostStream {
    const stream = this.sseStream(res);
    if (onClose) stream.onClose(onClose);
    this.eventStreams.trackAnswer(stream, session?.id);
    this.eventStreams.endWithToken(stream, auth);
    const connection = new SseConnection(stream, session ? { 'MCP-Session-Id': session.id } : undefined);
    connection.open();
    return this.postStreams.open(session?.id, connection);
  }

  private sseStream(res: ServerResponse): SseStream {
    return new SseStream(res, {
      keepAliveMs: this.options.keepAliveMs,
      maxBufferedBytes: this.options.maxStreamBufferBytes,
    });
  }
}
