import type { McpProtocolVersion } from '../mcp.constants.js';
import type { McpTransportKind } from '../interfaces/mcp-transport.interface.js';
import type { McpLogLevel } from '../logging/log-level.js';

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
  createdAt: number;
  lastActivityAt: number;
}

/**
 * Storage of session records. Every method is async so that a shared store (Redis) can
 * replace the in-memory one without touching transports or the protocol core.
 * @publicApi
 */
export interface McpSessionStore {
  create(record: McpSessionRecord): Promise<void>;
  get(id: string): Promise<McpSessionRecord | undefined>;
  /** Applies a partial update; resolves to the new record, or undefined when unknown. */
  update(id: string, patch: Partial<Omit<McpSessionRecord, 'id'>>): Promise<McpSessionRecord | undefined>;
  /** Marks activity at `at` (epoch ms). */
  touch(id: string, at: number): Promise<void>;
  /** Resolves to true when the session existed. */
  delete(id: string): Promise<boolean>;
  /** Ids of sessions whose last activity is older than `cutoff` (epoch ms). */
  findIdleSince(cutoff: number): Promise<string[]>;
  count(): Promise<number>;
}

/** A live outbound channel of a session on this instance (an SSE stream, a socket). */
export interface McpConnection {
  /**
   * Sends one JSON-RPC message; false when the channel could not take it. `eventId` is the
   * message's id in the session's replay buffer (SSE writes it as the `id:` line).
   */
  send(message: object, eventId?: string): boolean;
  /** Like `send()`, for a message already serialized with `JSON.stringify` (fan-out serializes once). */
  sendJson(json: string, eventId?: string): boolean;
  close(): void;
}
