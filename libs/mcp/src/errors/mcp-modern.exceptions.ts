import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { McpException } from './mcp.exception.js';
import { McpInvalidParamsException } from './mcp-protocol.exceptions.js';

/**
 * The errors MCP 2026-07-28 defines (`-32020..-32022`, the only codes this library emits from
 * the range the specification reserves) and the modern era's HTTP statuses for the JSON-RPC
 * ones it reuses.
 */

/**
 * 400 `-32020` HeaderMismatch: a required header (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`, a declared `Mcp-Param-*`) is missing, malformed, or disagrees with the body.
 */
export class McpHeaderMismatchException extends McpException {
  constructor(detail: string) {
    super(JsonRpcErrorCode.HeaderMismatch, 'Header mismatch', detail, undefined, { status: 400 });
  }
}

/**
 * 400 `-32021` MissingRequiredClientCapability: serving the request needs a capability the
 * client did not declare in `_meta` (for example `sampling`).
 * @publicApi
 */
export class McpMissingClientCapabilityException extends McpException {
  constructor(requiredCapabilities: Record<string, unknown>) {
    const names = Object.keys(requiredCapabilities).join(', ');
    super(
      JsonRpcErrorCode.MissingRequiredClientCapability,
      'Missing required client capability',
      `This request needs the client capabilities: ${names}`,
      { requiredCapabilities },
      { status: 400 },
    );
  }
}

/**
 * 400 `-32000`: a modern request reached an endpoint configured with `protocol: 'legacy'`. The
 * body is deliberately not a modern error, so a dual-era client falls back to `initialize`.
 */
export class McpModernEraDisabledException extends McpException {
  constructor() {
    super(
      JsonRpcErrorCode.ServerError,
      'Protocol era not served',
      'This endpoint serves the initialize-based protocol versions only (2025-11-25, 2025-06-18, 2025-03-26): send initialize',
      undefined,
      { status: 400 },
    );
  }
}

/** 400 `-32602`: a modern request whose `_meta` lacks a required field or has a malformed one. */
export class McpInvalidMetaException extends McpInvalidParamsException {
  constructor(detail: string) {
    super(detail, undefined, { status: 400 });
  }
}

/**
 * `-32602`: an MRTR `requestState` that fails verification (tampered, expired, made for another
 * request or principal, or signed with a key this server no longer holds).
 */
export class McpInvalidRequestStateException extends McpInvalidParamsException {
  constructor(detail: string) {
    super(`Invalid requestState: ${detail}`);
  }
}
