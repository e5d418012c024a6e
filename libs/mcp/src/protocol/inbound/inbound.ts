import type { IncomingHttpHeaders } from 'node:http';
import type { McpException } from '../../errors/mcp.exception.js';
import type { McpProtocolEras } from '../../mcp.constants.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../model/json-rpc.js';
import type { McpModernEnvelope } from './modern-envelope.js';
import type { McpRefusalReason } from '../../telemetry/mcp-telemetry.js';

/** The protocol era that serves a message: the 2025 one of `initialize` and sessions, or MCP 2026-07-28. */
export type McpEra = 'legacy' | 'modern';

/**
 * One inbound JSON-RPC message once it is classified: what it is, the era that serves it, and for
 * a modern request its envelope, read and checked (against the HTTP headers too) already. Nothing
 * after classification decides the era again.
 */
export type InboundMessage =
  | { readonly kind: 'request'; readonly era: 'legacy'; readonly request: JsonRpcRequest }
  | {
      readonly kind: 'request';
      readonly era: 'modern';
      readonly request: JsonRpcRequest;
      readonly envelope: McpModernEnvelope;
    }
  | { readonly kind: 'notification'; readonly era: McpEra; readonly notification: JsonRpcNotification }
  | { readonly kind: 'response'; readonly response: JsonRpcResponse }
  /**
   * Refused before anything runs: bad framing, an envelope or header that does not hold, an era
   * not served. `refusal` is why, when the exception's class does not say it (a 2026-07-28
   * request inside a batch is answered `-32600` for its era).
   */
  | {
      readonly kind: 'invalid';
      readonly id: JsonRpcId | null;
      readonly error: McpException;
      readonly method?: string;
      readonly refusal?: McpRefusalReason;
    };

/** A modern request, classified. */
export type InboundModernRequest = Extract<InboundMessage, { era: 'modern'; kind: 'request' }>;

/**
 * What one transport frame (an HTTP body, a WebSocket frame, a stdio line) carried: one message,
 * or a JSON-RPC batch. A batch belongs to the legacy era (MCP 2026-07-28 has none); its
 * admission, which needs the session's negotiated version, is the dispatcher's.
 */
export type Inbound =
  | { readonly kind: 'single'; readonly era: McpEra; readonly message: InboundMessage }
  | { readonly kind: 'batch'; readonly era: 'legacy'; readonly elements: readonly InboundMessage[] }
  /** A whole frame refused (a batch where the era has none). */
  | { readonly kind: 'refused'; readonly era: McpEra; readonly error: McpException };

/** What the transport knows of a frame besides its bytes. */
export interface InboundFrame {
  /** The eras the endpoint or connection serves (legacy HTTP+SSE: `'legacy'`). */
  readonly eras: McpProtocolEras;
  /**
   * Streamable HTTP only: the request's headers. A modern request's are checked against its body
   * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), and a modern
   * `MCP-Protocol-Version` makes a message without `_meta` modern.
   */
  readonly headers?: IncomingHttpHeaders;
}

/**
 * True for a frame that is one `initialize` (well formed or not): the handshake that creates a
 * session, so it needs none, and the version it negotiates is not read from a header.
 */
export function isInitializeFrame(inbound: Inbound): boolean {
  if (inbound.kind !== 'single') return false;
  const message = inbound.message;
  if (message.kind === 'request') return message.request.method === 'initialize';
  return message.kind === 'invalid' && message.method === 'initialize';
}
