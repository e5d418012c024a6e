import type { McpTransportKind } from '../../model/mcp-transport.interface.js';

/**
 * The one contract every transport (Streamable HTTP, legacy HTTP+SSE, WebSocket, stdio) keeps
 * with the module: it frames bytes and holds connections, and leaves every protocol decision to
 * the inbound classifier and the dispatcher. The module starts and stops all of them along one
 * path (`McpTransportsLifecycle`).
 */
export interface McpServedTransport {
  /** Which transport it is (`nest_mcp.transport` on the gauges that count by transport). */
  readonly kind: McpTransportKind;
  /**
   * The long-lived streams it holds now (`nest_mcp.streams.held`): standalone GET streams,
   * legacy HTTP+SSE streams, WebSocket connections, the stdio pipe.
   */
  heldStreams(): number;
  /** Starts taking messages, for a transport that reads on its own (stdio); HTTP-based ones are served by the HTTP server. */
  start?(): void;
  /**
   * Graceful shutdown, after the listens were answered: closes what this transport holds open
   * (its streams, with a reconnect hint) so the HTTP server can close. Sessions live on.
   */
  drain(): Promise<void> | void;
  /** Last: releases what is left (timers, the process's own streams). */
  close(): Promise<void> | void;
}

/** DI token of the transports the module serves (the extras decide which). */
export const MCP_TRANSPORTS = Symbol('MCP_TRANSPORTS');
