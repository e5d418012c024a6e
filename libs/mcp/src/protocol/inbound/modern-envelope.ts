import { McpInvalidMetaException } from '../../errors/mcp-modern.exceptions.js';
import { isLogLevel, type McpLogLevel } from '../../model/log-level.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
} from '../../mcp.constants.js';
import { isObject } from '../../model/is-object.js';
import { isModernProtocolVersion } from '../../model/protocol-version.js';

/** What every modern-era request says about itself in `params._meta` (MCP 2026-07-28). */
export interface McpModernEnvelope {
  /** The version the request is written in, as sent (checked against the supported ones later). */
  readonly protocolVersion: string;
  /** The capabilities the client declares for this request. */
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo?: Record<string, unknown>;
  /** The least severe level the client wants in `notifications/message`; none means no log messages. */
  readonly logLevel?: McpLogLevel;
}

/**
 * True for a message of the modern era: it carries the modern `_meta` protocol version (any
 * value: an unsupported one still gets the modern error), it is `server/discover`, or its HTTP
 * `MCP-Protocol-Version` header names a modern version. Everything else (an `initialize`, a
 * request in a legacy session, a batch) is the legacy era.
 */
export function isModernMessage(message: unknown, headerVersion?: unknown): boolean {
  if (!isObject(message)) return false;
  if (message.method === 'server/discover') return true;
  const meta = isObject(message.params) ? message.params._meta : undefined;
  // Most messages carry no `_meta`: nothing to ask of it then.
  if (meta !== undefined && isObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION)) return true;
  return isModernProtocolVersion(headerVersion);
}

/**
 * Reads and checks the envelope of a modern request: `protocolVersion` (a string) and
 * `clientCapabilities` (an object) are required, `clientInfo` and `logLevel` optional. A missing
 * or malformed required field is `-32602` (HTTP 400), before anything else is looked at.
 */
export function readModernEnvelope(params: unknown): McpModernEnvelope {
  if (!isObject(params)) throw new McpInvalidMetaException("A modern request needs 'params' with '_meta'");
  const meta = params._meta;
  if (!isObject(meta)) throw new McpInvalidMetaException("A modern request needs 'params._meta' (an object)");
  const protocolVersion = meta[META_PROTOCOL_VERSION];
  if (typeof protocolVersion !== 'string' || protocolVersion === '') {
    throw new McpInvalidMetaException(`'_meta["${META_PROTOCOL_VERSION}"]' is required (a protocol version string)`);
  }
  const clientCapabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isObject(clientCapabilities)) {
    throw new McpInvalidMetaException(`'_meta["${META_CLIENT_CAPABILITIES}"]' is required (an object)`);
  }
  const clientInfo = meta[META_CLIENT_INFO];
  if (clientInfo !== undefined && !isObject(clientInfo)) {
    throw new McpInvalidMetaException(`'_meta["${META_CLIENT_INFO}"]' must be an object`);
  }
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    throw new McpInvalidMetaException(`'_meta["${META_LOG_LEVEL}"]' must be a log level`);
  }
  return {
    protocolVersion,
    clientCapabilities,
    ...(clientInfo !== undefined ? { clientInfo } : {}),
    ...(logLevel !== undefined ? { logLevel } : {}),
  };
}
