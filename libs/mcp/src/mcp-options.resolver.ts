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
  DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './mcp.constants.js';
import { INVALID_PROTOCOL_VERSION_SETTING } from './mcp.messages.js';

/** DI token of the options with defaults applied. */
export const MCP_RESOLVED_OPTIONS = Symbol('MCP_RESOLVED_OPTIONS');

/** A positive number, or the default; bad values are reported by `validateMcpOptions`. */
const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;

const NUMERIC_OPTIONS = [
  'sessionIdleTimeoutMs',
  'maxSessions',
  'sessionCleanupIntervalMs',
  'pageSize',
  'maxBodyBytes',
  'sseKeepAliveMs',
  'replayBufferSize',
  'maxStreamBufferBytes',
  'clientRequestTimeoutMs',
] as const;

/**
 * The problems of a set of options, as messages; empty when they can work. Run at `init()`,
 * so a bad setting rejects `app.init()` instead of aborting the process while it is built.
 */
export function validateMcpOptions(options: McpModuleOptions): string[] {
  const problems: string[] = [];
  if (!options?.serverInfo?.name || !options.serverInfo.version) {
    problems.push('McpModule needs serverInfo.name and serverInfo.version');
  }
  if (
    options?.protocolVersion !== undefined &&
    !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(options.protocolVersion)
  ) {
    problems.push(INVALID_PROTOCOL_VERSION_SETTING(options.protocolVersion, SUPPORTED_PROTOCOL_VERSIONS));
  }
  if (options?.wireProfile !== undefined && options.wireProfile !== 'gateway' && options.wireProfile !== 'strict') {
    problems.push(`McpModule option 'wireProfile' must be 'gateway' or 'strict', got '${String(options.wireProfile)}'`);
  }
  for (const name of NUMERIC_OPTIONS) {
    const value = options?.[name];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      problems.push(`McpModule option '${name}' must be a positive number, got ${String(value)}`);
    }
  }
  const rate = options?.toolRateLimit;
  if (
    rate !== undefined &&
    !(Number.isSafeInteger(rate?.limit) && rate.limit > 0 && Number.isFinite(rate.windowMs) && rate.windowMs > 0)
  ) {
    problems.push("McpModule option 'toolRateLimit' needs a positive integer 'limit' and a positive 'windowMs'");
  }
  const debounce = options?.listChangedDebounceMs;
  if (debounce !== undefined && !(Number.isFinite(debounce) && debounce >= 0)) {
    problems.push(`McpModule option 'listChangedDebounceMs' must be zero or more, got ${String(debounce)}`);
  }
  return problems;
}

/** Applies defaults (validation is `validateMcpOptions`'s job). */
export function resolveMcpOptions(options: McpModuleOptions): ResolvedMcpOptions {
  return {
    ...options,
    sessions: options.sessions ?? true,
    sessionIdleTimeoutMs: positive(options.sessionIdleTimeoutMs, DEFAULT_SESSION_IDLE_TIMEOUT_MS),
    maxSessions: Math.floor(positive(options.maxSessions, DEFAULT_MAX_SESSIONS)),
    sessionCleanupIntervalMs: positive(options.sessionCleanupIntervalMs, DEFAULT_SESSION_CLEANUP_INTERVAL_MS),
    pageSize: Math.floor(positive(options.pageSize, DEFAULT_PAGE_SIZE)),
    maxBodyBytes: positive(options.maxBodyBytes, DEFAULT_BODY_LIMIT_BYTES),
    validateProtocolVersionHeader: options.validateProtocolVersionHeader ?? true,
    wireProfile: options.wireProfile ?? 'gateway',
    sseKeepAliveMs: positive(options.sseKeepAliveMs, DEFAULT_SSE_KEEP_ALIVE_MS),
    replayBufferSize: Math.floor(positive(options.replayBufferSize, DEFAULT_REPLAY_BUFFER_SIZE)),
    maxStreamBufferBytes: positive(options.maxStreamBufferBytes, DEFAULT_STREAM_BUFFER_BYTES),
    listChangedDebounceMs: options.listChangedDebounceMs ?? DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
    clientRequestTimeoutMs: positive(options.clientRequestTimeoutMs, DEFAULT_CLIENT_REQUEST_TIMEOUT_MS),
  };
}
