import type { McpConnection } from './mcp-session.store.js';

/**
 * The standalone streams this instance holds: each legacy session's one server→client stream
 * (the Streamable HTTP GET, a WebSocket or stdio that joined the session, a legacy HTTP+SSE
 * stream), its attach with replay or resync after `Last-Event-ID`, its detach, and messages for
 * one session. A backend seam (see `McpBackend`); the notifications `McpFanout` brings to a
 * session reach it through the stream held here, so a backend implements both on the same
 * state (one class may implement both interfaces).
 *
 * A session has at most one live stream across the deployment: a new one, on any instance,
 * replaces the old one, which its holder closes. A held stream keeps its session from expiring.
 * Every message it takes is serialized already.
 * @publicApi
 */
export interface McpLiveStreams {
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
  /**
   * Writes one message for the session (the related messages of a request whose client reads
   * them on its GET stream only) to its live standalone stream, on whichever instance holds it;
   * false when the session holds none (the client cannot be reached).
   */
  send(sessionId: string, json: string): boolean;
  /** Sessions with a live standalone stream on this instance. */
  heldSessions(): Iterable<string>;
  /**
   * Graceful shutdown: closes every live stream of this instance with a `retry:` hint. Sessions
   * live on; their clients reconnect (to another instance) with `Last-Event-ID`.
   */
  drain(): Promise<void>;
}
