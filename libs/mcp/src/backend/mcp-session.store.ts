import type { McpProtocolVersion } from '../mcp.constants.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';
import type { McpLogLevel } from '../model/log-level.js';
import type { McpPrincipalBinding } from '../model/mcp-principal.js';

/** What is known about a session; plain data, so any store (memory, Redis) can hold it. @publicApi */
export interface McpSessionRecord {
  readonly id: string;
  /** The version negotiated by `initialize`. */
  protocolVersion: McpProtocolVersion;
  clientInfo?: Record<string, unknown>;
  clientCapabilities?: Record<string, unknown>;
  /** Set when the client sent `notifications/initialized`. */
  initialized: boolean;
  /** The least severe level the client wants in `notifications/message` (`logging/setLevel`). */
  logLevel?: McpLogLevel;
  transport: McpTransportKind;
  /**
   * Who created the session (resource-server mode): every later request must come from the same
   * principal, or it is answered as if the session did not exist. Never changes.
   */
  readonly principal?: McpPrincipalBinding;
  createdAt: number;
  lastActivityAt: number;
}

/** Why a session ended: DELETE, idle expiry, or its connection (WebSocket, stdio) closed. @publicApi */
export type McpSessionEndReason = 'deleted' | 'expired' | 'closed';

/** Told when a session ends, on every instance, whatever the reason. @publicApi */
export type McpSessionEndListener = (sessionId: string, reason: McpSessionEndReason) => void | Promise<void>;

/** The facts of a session that change after `initialize`. @publicApi */
export type McpSessionPatch = Partial<Pick<McpSessionRecord, 'initialized' | 'logLevel'>>;

/**
 * Storage of session records: the first of the backend seams (see `McpBackend`). Every method
 * may answer later, so a shared store (Redis) can stand where the in-memory one does: all are
 * async, except `access`, which may answer at once or in a promise (see there).
 *
 * The rules every implementation keeps (the contract suite checks them):
 * - `create` is atomic with its cap: concurrent creates never pass `limit`.
 * - `access` reads and restarts the idle clock in one step (one round trip), and only for the
 *   session's own principal: the lookup of another principal changes nothing.
 * - `update` never re-creates an ended session.
 * - `end` is the one operation that ends a session: it removes the record and everything the
 *   backend keeps for it (subscriptions, outbox, POST-stream logs) at once, so a write that
 *   races it either lands before it (and is removed with it) or is refused.
 * - Every end, however it came about (`end`, an expiry found by `access` or `expireIdle`, on any
 *   instance), is told once to the `onEnded` listeners of every instance.
 * @publicApi
 */
export interface McpSessionStore {
  /** Stores a new session unless `limit` sessions exist already; false when full. */
  create(record: McpSessionRecord, limit: number): Promise<boolean>;
  /**
   * The live session with its idle clock restarted at `now`; undefined when it is unknown, or
   * idle for longer than `idleTimeoutMs` (the store may end such a session here).
   *
   * A session bound to another principal than `principal` (`isSamePrincipal`: a bound session
   * and an anonymous lookup, or the reverse, never match) is undefined too, and left exactly as
   * it was: its idle clock is not restarted and it is not ended, so a request that is refused
   * for it keeps nobody's session alive.
   *
   * A store that knows at once may answer at once (the record or undefined); one that asks
   * elsewhere (a shared store) answers with a promise (an `async` method's, or any thenable).
   * Every request with a session makes this lookup first: the in-process store answering at once
   * spares each request a suspension on a promise. The session manager takes either shape, and
   * checks the answer's principal itself whichever it is.
   */
  access(
    id: string,
    now: number,
    idleTimeoutMs: number,
    principal?: McpPrincipalBinding,
  ): McpSessionRecord | undefined | Promise<McpSessionRecord | undefined>;
  /** Changes stored facts of a live session; false when it is gone (it is never re-created). */
  update(id: string, patch: McpSessionPatch): Promise<boolean>;
  /**
   * Marks activity at `now` for live sessions (open streams and requests in flight count as
   * activity), with whatever a lookup would refresh too (a shared store's key expiry): a session
   * kept alive this way makes no lookup.
   */
  touch(ids: readonly string[], now: number): Promise<void>;
  /**
   * Ends a session and removes everything stored for it, as one operation. True when it
   * existed. Every instance then hears of it (`onEnded`).
   */
  end(id: string, reason: McpSessionEndReason): Promise<boolean>;
  /**
   * Ends (reason `'expired'`) every session whose last activity is older than `cutoff` (epoch
   * ms) and that no live standalone stream keeps alive, on any instance. Each end is atomic with
   * its own check, so a session used or attached meanwhile is kept, and sweeps running on several
   * instances at once end each session once. Returns how many it ended.
   */
  expireIdle(cutoff: number): Promise<number>;
  count(): Promise<number>;
  /**
   * Registers a listener for session ends: every instance hears every end, once, with its
   * reason, after what the backend kept for the session is gone (its live stream closed). A
   * listener's failure, sync or async, is logged and never reaches the code that ended the
   * session.
   */
  onEnded(listener: McpSessionEndListener): void;
}

/**
 * A live outbound channel on this instance (an SSE stream, a socket, stdout). Everything it
 * carries is already serialized: the dispatcher serializes once, in one place.
 * @publicApi
 */
export interface McpConnection {
  /**
   * Sends one serialized JSON-RPC message; false when the channel cannot take it (closed, or
   * closed now for being too slow). `eventId` is the message's id in a replay log (SSE writes it
   * as the `id:` line; other channels ignore it).
   */
  send(json: string, eventId?: string): boolean;
  /** Closes the channel; `retryMs` suggests when to reconnect (SSE `retry:` on a graceful shutdown). */
  close(retryMs?: number): void;
}
