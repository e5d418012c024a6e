import {
  LATEST_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpAnyProtocolVersion,
  type McpProtocolVersion,
} from '../mcp.constants.js';

export const isSupportedProtocolVersion = (value: unknown): value is McpProtocolVersion =>
  typeof value === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(value);

/** True for a version of the modern (2026-07-28) era this server speaks. */
export const isModernProtocolVersion = (value: unknown): boolean =>
  typeof value === 'string' && (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(value);

/**
 * The version `initialize` answers (docs/decisions/0006-protocol-version-negotiation.md): the configured one when
 * set; otherwise the
 * client's when supported; otherwise the latest.
 */
export function negotiateProtocolVersion(requested: unknown, configured?: McpProtocolVersion): McpProtocolVersion {
  if (configured) return configured;
  return isSupportedProtocolVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** Versions compare as their ISO dates. */
export const isAtLeast = (version: McpAnyProtocolVersion, minimum: McpAnyProtocolVersion): boolean =>
  version >= minimum;
