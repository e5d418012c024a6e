import type { McpConnection } from './mcp-session.store.js';

/**
 * The answer stream of one POST (Streamable HTTP, SSE answer), kept so that a client whose
 * connection dropped can resume it with `GET` + `Last-Event-ID` (a dropped connection is not a
 * cancellation). @publicApi
 */
export interface McpPostStream {
  /** Records a serialized message and writes it to the connection that carries the stream. */
  send(json: string): void;
  /** The response went out: the stream ends, on whatever connection carries it. */
  finish(): void;
}

/** What became of a `Last-Event-ID` that names a POST stream. @publicApi */
export type McpPostStreamResume =
  /** Not a POST-stream id of this session: treat the GET as a standalone stream. */
  | 'unknown'
  /** The missed events were replayed to the connection, which now carries the rest. */
  | 'resumed'
  /** Events after that id were dropped from the stream's history: it cannot be resumed. */
  | 'gap';

/**
 * The logs of POST answers (their SSE events, `replayBufferSize` of them kept per answer) and
 * their resumption: a client whose answer stream dropped sends `GET` with the last event id it
 * saw, on any instance, and gets what it missed, then the rest of the answer live. A backend
 * seam (see `McpBackend`).
 *
 * An answer is logged while its session lives. When the session ends (the session store's
 * `end`, on any instance) its logs go with it, and every instance closes the connections it
 * holds that carry one of its answers, a resumed one included: no transport knows a resumed
 * answer's connection as an answer, so nothing else would end it.
 * @publicApi
 */
export interface McpPostStreams {
  /**
   * Starts the log of a POST's SSE answer, written to `connection`. Logged (resumable) while the
   * session lives; without a session, or after it ended, the stream only writes.
   */
  open(sessionId: string | undefined, connection: McpConnection): McpPostStream;
  /**
   * Resumes a POST stream named by `lastEventId` on `connection`, whichever instance runs the
   * request: what was missed is replayed, and what the request still sends follows live.
   */
  resume(sessionId: string, lastEventId: string, connection: McpConnection): Promise<McpPostStreamResume>;
  /**
   * Graceful shutdown: closes the connections of this instance that carry resumed answers, with
   * a `retry:` hint. The answers stay logged; their clients resume them again elsewhere.
   */
  drain(): Promise<void>;
}
