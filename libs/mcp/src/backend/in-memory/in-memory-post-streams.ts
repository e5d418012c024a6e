import type { McpBackendSettings } from '../mcp-backend.interface.js';
import type { McpPostStream, McpPostStreamResume, McpPostStreams } from '../mcp-post-streams.js';
import type { McpConnection } from '../mcp-session.store.js';
import type { InMemorySessionStore } from './in-memory-session.store.js';
import { parsePostEventId, PostStream } from './post-stream.js';

/** How soon a client whose resumed answer was drained by a shutdown should reconnect. */
const DRAIN_RETRY_MS = 1_000;

/** POST answers kept per session for resumption; older ones are forgotten. */
const POST_STREAMS_PER_SESSION = 16;

/**
 * The logs of POST answers in this process: the last `POST_STREAMS_PER_SESSION` answers of each
 * live session, each keeping its last `replayBufferSize` events. A session's answers are
 * registered by an `open` that finds it alive and dropped inside the session store's `end`, in
 * the same turn; the end also closes the connections that still carry them (a resumed one is
 * known to nobody else).
 */
export class InMemoryPostStreams implements McpPostStreams {
  /** Session → its resumable answers by stream id, oldest first. */
  private readonly logs = new Map<string, Map<string, PostStream>>();
  /** Session → its answers not finished yet (bounded by the requests running). */
  private readonly unfinished = new Map<string, Set<PostStream>>();

  constructor(
    private readonly options: McpBackendSettings,
    private readonly sessions: InMemorySessionStore,
  ) {
    sessions.clearOnEnd((sessionId) => this.ended(sessionId));
  }

  open(sessionId: string | undefined, connection: McpConnection): McpPostStream {
    // Without a live session (stateless, modern era, an ended session) nothing can resume it:
    // it only writes, without event ids.
    if (sessionId === undefined || !this.sessions.isAlive(sessionId)) {
      return { send: (json) => void connection.send(json), finish: () => connection.close() };
    }
    const stream: PostStream = new PostStream(this.options.replayBufferSize, connection, () =>
      this.finished(sessionId, stream),
    );
    let logs = this.logs.get(sessionId);
    if (!logs) this.logs.set(sessionId, (logs = new Map<string, PostStream>()));
    logs.set(stream.id, stream);
    if (logs.size > POST_STREAMS_PER_SESSION) logs.delete(logs.keys().next().value!);
    let unfinished = this.unfinished.get(sessionId);
    if (!unfinished) this.unfinished.set(sessionId, (unfinished = new Set<PostStream>()));
    unfinished.add(stream);
    return stream;
  }

  async resume(sessionId: string, lastEventId: string, connection: McpConnection): Promise<McpPostStreamResume> {
    const position = parsePostEventId(lastEventId);
    const stream = position && this.logs.get(sessionId)?.get(position.streamId);
    return stream ? stream.resume(connection, position.seq) : 'unknown';
  }

  async drain(): Promise<void> {
    for (const streams of this.unfinished.values()) for (const stream of streams) stream.drain(DRAIN_RETRY_MS);
  }

  private finished(sessionId: string, stream: PostStream): void {
    const unfinished = this.unfinished.get(sessionId);
    if (!unfinished?.delete(stream) || unfinished.size > 0) return;
    this.unfinished.delete(sessionId);
  }

  private ended(sessionId: string): void {
    this.logs.delete(sessionId);
    const unfinished = this.unfinished.get(sessionId);
    this.unfinished.delete(sessionId);
    if (unfinished) for (const stream of unfinished) stream.end();
  }
}
