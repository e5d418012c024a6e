import {
  McpInvalidAuthRequestException,
  McpInsufficientScopeException,
  McpUnauthorizedException,
} from '../../auth/mcp-auth.exceptions.js';
import {
  McpHeaderMismatchException,
  McpInvalidMetaException,
  McpModernEraDisabledException,
} from '../../errors/mcp-modern.exceptions.js';
import { McpInvalidRequestException, McpParseErrorException } from '../../errors/mcp-protocol.exceptions.js';
import {
  McpForbiddenOriginException,
  McpMethodNotAllowedException,
  McpNotAcceptableException,
  McpPayloadTooLargeException,
  McpSessionRequiredException,
  McpUnsupportedMediaTypeException,
  McpUnsupportedProtocolVersionException,
} from '../../errors/mcp-transport.exceptions.js';
import type { McpException } from '../../errors/mcp.exception.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';
import { JsonRpcErrorCode } from '../../model/json-rpc.js';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';
import type { McpRefusalReason, McpTelemetry } from '../../telemetry/mcp-telemetry.js';

/** The exceptions that refuse a request for a reason other than their class's, by class. */
const BY_CLASS: ReadonlyArray<readonly [abstract new (...args: never[]) => McpException, McpRefusalReason]> = [
  // The authenticator: a missing, invalid or expired token, a malformed authorization, a scope short.
  [McpUnauthorizedException, 'auth'],
  [McpInsufficientScopeException, 'auth'],
  [McpInvalidAuthRequestException, 'auth'],
  [McpForbiddenOriginException, 'origin'],
  [McpPayloadTooLargeException, 'size'],
  // The era: a modern message where only the legacy era is served, a version the endpoint does
  // not serve (`initialize` on a modern-only endpoint, the legacy `/sse` there, a header naming a
  // version no session speaks).
  [McpModernEraDisabledException, 'era'],
  [McpUnsupportedProtocolVersionException, 'era'],
  // What is not a well-formed MCP request: JSON, JSON-RPC, the envelope, the headers, the HTTP
  // method and media types, a session id a legacy request must carry.
  [McpParseErrorException, 'invalid'],
  [McpInvalidRequestException, 'invalid'],
  [McpInvalidMetaException, 'invalid'],
  [McpHeaderMismatchException, 'invalid'],
  [McpNotAcceptableException, 'invalid'],
  [McpUnsupportedMediaTypeException, 'invalid'],
  [McpMethodNotAllowedException, 'invalid'],
  [McpSessionRequiredException, 'invalid'],
];

/**
 * Why an exception refused a request (`nest_mcp.requests.refused`), or undefined when it is not a
 * refusal (a handler's own failure, an unknown tool, a session that expired, the backend down).
 * Every `-32004` not counted above is a rate refusal: the tool rate limiter, the per-caller caps
 * (sessions, streams, listens, tasks), and a guard's 429.
 */
export function refusalReasonOf(exception: McpException): McpRefusalReason | undefined {
  // The instance's bounds (503) and a connection's in-flight bound are its capacity; a caller's
  // budget is a rate refusal (`-32004`, below); a session's own bound refuses nothing.
  if (exception instanceof McpCapacityException) {
    if (exception.holder === 'server' || exception.holder === 'connection') return 'capacity';
    return exception.holder === 'caller' ? 'rate' : undefined;
  }
  for (const [type, reason] of BY_CLASS) if (exception instanceof type) return reason;
  return exception.code === (JsonRpcErrorCode.TooManyRequests as number) ? 'rate' : undefined;
}

/**
 * Counts one refused request, when `exception` is a refusal, with the transport's network
 * attributes; `reason` overrides the exception's own (a line too long for stdio is answered
 * `-32600` but refused for its size).
 */
export function countRefusal(
  telemetry: McpTelemetry,
  exception: McpException,
  transport: McpTransportKind,
  request?: unknown,
  reason: McpRefusalReason | undefined = refusalReasonOf(exception),
): void {
  if (reason !== undefined) telemetry.refusedOn(reason, transport, request);
}
