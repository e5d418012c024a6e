import type { McpBackendSettings } from '../mcp-backend.interface.js';
import type { McpPostStream, McpPostStreamResume, McpPostStreams } from '../mcp-post-streams.js';
import type { McpConnection } from '../mcp-session.store.js';
import type { InMemorySessionStore } from './in-memory-session.store.js';
import { parsePostEventId, PostStream } from './post-stream.js';

/** POST answers kept per session for resumption; older ones are forgotten. */
const POST_STREAMS_PER_SESSION = 16;

/**
 * The logs of POST answers in this process: the last `POST_STREAMS_PER_SESSION` answers of each
 * live session, each keeping its last `replayBufferSize` events. A session's logs are created by
 * an `open` that finds it alive and dropped inside the session store's `end`, in the same turn.
 */
export class InMemoryPostStreams implements McpPostStreams {
  /** Session → its resumable answers by stream id, oldest first. */
  private readonly bySession = new Map<string, Map<string, PostStream>>();

  constructor(
    private readonly options: McpBackendSettings,
    private readonly sessions: InMemorySessionStore,
  ) {
    sessions.clearOnEnd((sessionId) => this.bySession.delete(sessionId));
  }

  open(sessionId: string | undefined, connection: McpConnection): McpPostStream {
    // Without a live session (stateless, modern era, an ended session) nothing can resume it:
    // it only writes, without event ids.
    if (sessionId === undefined || !this.sessions.isAlive(sessionId)) {
      return { send: (json) => void connection.send(json), finish: () => connection.close() };
    }
    const stream = new PostStream(this.options.replayBufferSize, connection);
    let streams = this.bySession.get(sessionId);
    if (!streams) this.bySession.set(sessionId, (streams = new Map<string, PostStream>()));
    streams.set(stream.id, stream);
    if (streams.size > POST_STREAMS_PER_SESSION) streams.delete(streams.keys().next().value!);
    return stream;
  }

  async resume(sessionId: string, lastEventId: string, connection: McpConnection): Promise<McpPostStreamResume> {
    const position = parsePostEventId(lastEventId);
    const stream = position && this.bySession.get(sessionId)?.get(position.streamId);
    return stream ? stream.resume(connection, position.seq) : 'unknown';
  }

  async drain(): Promise<void> {}
}
