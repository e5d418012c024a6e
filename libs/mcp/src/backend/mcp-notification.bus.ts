import type { McpConnection, McpSessionEndReason } from './mcp-session.store.js';

/** Told when a session ends, on every instance, whatever the reason. @publicApi */
export type McpSessionEndListener = (sessionId: string, reason: McpSessionEndReason) => void | Promise<void>;

/** The lists whose changes clients can hear about. @publicApi */
export type McpListKind = 'resources' | 'tools' | 'prompts';

/** How many recipients a notification reached (or was queued for). @publicApi */
export interface McpDeliveryReport {
  /** Legacy-era sessions (subscribed with `resources/subscribe`, or holding a stream). */
  readonly sessions: number;
  /** Modern-era `subscriptions/listen` streams. */
  readonly listeners: number;
}

/**
 * A modern-era `subscriptions/listen` stream held by this instance: what it asked for (already
 * reduced to what was honoured) and how to write to it. Nothing is replayed to it: it lives as
 * long as its connection.
 * @publicApi
 */
export interface McpListener {
  /** The exact resource URIs it listens to. */
  readonly resources: ReadonlySet<string>;
  /** The lists whose changes it listens to. */
  readonly lists: ReadonlySet<McpListKind>;
  /** Writes one notification on the stream, stamped with the listen's subscription id. */
  notify(method: string, params?: Record<string, unknown>): void;
}

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
 * Delivery of server-initiated messages: the one owner of the live streams of this instance,
 * their attach and detach, each session's replayable outbox and its POST-stream logs. A backend
 * seam (see `McpBackend`): a multi-instance implementation (a shared notification log, an
 * outbox per session for its own messages, a pub/sub wake-up) stands where the in-process one
 * does, without touching transports.
 * Every message it takes is serialized already.
 * @publicApi
 */
export interface McpNotificationBus {
  /**
   * `notifications/resources/updated { uri }` to exactly its audience: each legacy session
   * subscribed to `uri` (replayable after `Last-Event-ID`, and sent on its live stream) and each
   * modern listener of `uri` on any instance. Cost: O(recipients of that URI), on the instances
   * that hold their streams (the Redis backend does a constant amount of work in Redis).
   */
  resourceUpdated(uri: string): Promise<McpDeliveryReport>;
  /**
   * `notifications/<kind>/list_changed` to every legacy session that holds (or held) a
   * standalone stream, recorded so that a client resuming with `Last-Event-ID` gets what it
   * missed, and to every modern listener of that list.
   */
  listChanged(kind: McpListKind): Promise<McpDeliveryReport>;
  /** Adds a modern listener on this instance; the returned function removes it. */
  addListener(listener: McpListener): () => void;
  /**
   * Makes `connection` the session's standalone stream (a new one replaces the old one, which
   * is closed). Replays what the session missed after `lastEventId`, or resyncs when that id is
   * unknown. False, with nothing attached, when the session has ended.
   */
  attach(sessionId: string, connection: McpConnection, lastEventId?: string): Promise<boolean>;
  /** Detaches a stream if it is still the session's current one (the client went away). */
  detach(sessionId: string, connection: McpConnection): void;
  /** True when this instance holds a live standalone stream of the session. */
  holds(sessionId: string): boolean;
  /** Writes to the session's live standalone stream on this instance; false without one. */
  sendToSession(sessionId: string, json: string): boolean;
  /** Sessions with a live standalone stream on this instance. */
  heldSessions(): Iterable<string>;
  /**
   * Starts the log of a POST's SSE answer, written to `connection`. Logged (resumable) while the
   * session lives; after it ended the stream only writes.
   */
  openPostStream(sessionId: string | undefined, connection: McpConnection): McpPostStream;
  /**
   * Resumes a POST stream named by `lastEventId` on `connection`, whichever instance runs the
   * request: what was missed is replayed, and what the request still sends follows live.
   */
  resumePostStream(sessionId: string, lastEventId: string, connection: McpConnection): Promise<McpPostStreamResume>;
  /** Registers a listener for session ends (every instance hears every end). */
  onSessionEnded(listener: McpSessionEndListener): void;
  /**
   * Graceful shutdown: closes every live stream of this instance with a `retry:` hint. Sessions
   * live on; their clients reconnect (to another instance) with `Last-Event-ID`.
   */
  drain(): Promise<void>;
}
