import type { McpProtocolVersion } from '../mcp.constants.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';
import type { McpSessionRecord } from '../backend/mcp-session.store.js';
import type { McpPrincipal } from '../model/mcp-principal.js';

/** What a transport tells the dispatcher about one inbound message. */
export interface McpDispatchContext {
  readonly transport: McpTransportKind;
  /** The raw transport request (the Express request over HTTP). */
  readonly request?: unknown;
  /** Whether `initialize` creates a session on this transport. */
  readonly sessionsEnabled: boolean;
  /** The session the message belongs to; `initialize` sets it when it creates one. */
  session?: McpSessionRecord;
  /** The principal the transport authenticated for this message (resource-server mode). */
  readonly auth?: McpPrincipal;
  /**
   * The version the client named in its `MCP-Protocol-Version` header, when valid. Set by the
   * transport's `prepare` (so a refused header is answered inside the message's SERVER span).
   */
  headerProtocolVersion?: McpProtocolVersion;
  /**
   * Delivers a serialized message related to the request before its response (POST → SSE
   * upgrade, the socket, the session's GET stream). False when nothing can carry it.
   */
  readonly sendRelated?: (json: string) => boolean;
  /**
   * Registers what to do when the transport drops the request (modern HTTP: the client closed its
   * answer stream); called at once when it was dropped already. A callback, not an AbortSignal:
   * most requests are never dropped, and a signal per request is measurable work.
   */
  readonly onDropped?: (drop: () => void) => void;
  /**
   * The connection (WebSocket, stdio, legacy SSE) the message came on: its requests are tracked
   * under it for `notifications/cancelled`, in both eras. Without one, the session's id is used.
   */
  readonly connectionId?: string;
  /**
   * When the message arrived (`performance.now()`), taken by the transport from
   * `McpTelemetry.receivedNow()`: its SERVER span and `mcp.server.operation.duration` start there,
   * so the work before dispatch (authentication, the session lookup, waiting behind an
   * `initialize`) counts. Absent when nothing is timed; then they start at dispatch.
   */
  readonly receivedAt?: number;
}
