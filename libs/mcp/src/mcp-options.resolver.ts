import type { McpModuleOptions, ResolvedMcpOptions } from './interfaces/mcp-module-options.interface.js';
import {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SESSION_CLEANUP_INTERVAL_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_SSE_KEEP_ALIVE_MS,
  DEFAULT_REPLAY_BUFFER_SIZE,
  DEFAULT_STREAM_BUFFER_BYTES,
  DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './mcp.constants.js';
import { McpDefinitionError } from './errors/mcp-bootstrap.errors.js';
import { INVALID_PROTOCOL_VERSION_SETTING } from './mcp.messages.js';

/** DI token of the options with defaults applied. */
export const MCP_RESOLVED_OPTIONS = Symbol('MCP_RESOLVED_OPTIONS');

const positive = (value: number | undefined, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new McpDefinitionError(`McpModule option '${name}' must be a positive number, got ${value}`);
  }
  return value;
};

/** Applies defaults and rejects settings that cannot work (at startup, never per request). */
export function resolveMcpOptions(options: McpModuleOptions): ResolvedMcpOptions {
  if (!options?.serverInfo?.name || !options.serverInfo.version) {
    throw new McpDefinitionError('McpModule needs serverInfo.name and serverInfo.version');
  }
  if (
    options.protocolVersion !== undefined &&
    !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(options.protocolVersion)
  ) {
    throw new McpDefinitionError(
      INVALID_PROTOCOL_VERSION_SETTING(options.protocolVersion, SUPPORTED_PROTOCOL_VERSIONS),
    );
  }
  if (options.wireProfile !== undefined && options.wireProfile !== 'gateway' && options.wireProfile !== 'strict') {
    throw new McpDefinitionError(
      `McpModule option 'wireProfile' must be 'gateway' or 'strict', got '${options.wireProfile}'`,
    );
  }
  return {
    ...options,
    sessions: options.sessions ?? true,
    sessionIdleTimeoutMs: positive(
      options.sessionIdleTimeoutMs,
      DEFAULT_SESSION_IDLE_TIMEOUT_MS,
      'sessionIdleTimeoutMs',
    ),
    sessionCleanupIntervalMs: positive(
      options.sessionCleanupIntervalMs,
      DEFAULT_SESSION_CLEANUP_INTERVAL_MS,
      'sessionCleanupIntervalMs',
    ),
    pageSize: Math.floor(positive(options.pageSize, DEFAULT_PAGE_SIZE, 'pageSize')),
    maxBodyBytes: positive(options.maxBodyBytes, DEFAULT_BODY_LIMIT_BYTES, 'maxBodyBytes'),
    validateProtocolVersionHeader: options.validateProtocolVersionHeader ?? true,
    wireProfile: options.wireProfile ?? 'gateway',
    sseKeepAliveMs: positive(options.sseKeepAliveMs, DEFAULT_SSE_KEEP_ALIVE_MS, 'sseKeepAliveMs'),
    replayBufferSize: Math.floor(positive(options.replayBufferSize, DEFAULT_REPLAY_BUFFER_SIZE, 'replayBufferSize')),
    maxStreamBufferBytes: positive(options.maxStreamBufferBytes, DEFAULT_STREAM_BUFFER_BYTES, 'maxStreamBufferBytes'),
    listChangedDebounceMs:
      options.listChangedDebounceMs === 0
        ? 0
        : positive(options.listChangedDebounceMs, DEFAULT_LIST_CHANGED_DEBOUNCE_MS, 'listChangedDebounceMs'),
  };
}
