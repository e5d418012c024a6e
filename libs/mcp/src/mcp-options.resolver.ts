import type { McpModuleOptions, ResolvedMcpOptions } from './interfaces/mcp-module-options.interface.js';
import {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SESSION_CLEANUP_INTERVAL_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_MAX_IN_FLIGHT_REQUESTS,
  DEFAULT_MAX_LISTENS,
  DEFAULT_MAX_LISTEN_URIS,
  DEFAULT_REQUEST_STATE_TTL_MS,
  DEFAULT_REPLAY_BUFFER_SIZE,
  DEFAULT_STREAM_BUFFER_BYTES,
  DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
  DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_ARGUMENT_DEPTH,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './mcp.constants.js';
import { INVALID_PROTOCOL_VERSION_SETTING } from './mcp.messages.js';
import { McpDefinitionError } from './errors/mcp-bootstrap.errors.js';
import { assertValidIcons } from './registry/icon-rules.js';
import { authOptionProblems } from './auth/auth-options.validation.js';
import { resolveTaskOptions, taskOptionProblems } from './tasks/task-options.js';

/** A positive number, or the default (bad values were refused by `validateMcpOptions`). */
const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;

/**
 * The default per-caller share of an instance-wide cap: a tenth. One caller can then never take
 * the whole budget (ten callers at their caps are needed), while a client that opens a stream
 * or a listen per session it really uses stays far below it.
 */
const perCallerShare = (instanceCap: number): number => Math.max(1, Math.floor(instanceCap / 10));

const NUMERIC_OPTIONS = [
  'sessionIdleTimeoutMs',
  'maxSessions',
  'sessionCleanupIntervalMs',
  'pageSize',
  'maxBodyBytes',
  'keepAliveMs',
  'maxInFlightRequests',
  'requestStateTtlMs',
  'maxListens',
  'maxListenUris',
  'maxSubscriptionsPerSession',
  'replayBufferSize',
  'maxStreamBufferBytes',
  'clientRequestTimeoutMs',
  'maxArgumentDepth',
  'maxSessionsPerPrincipal',
  'maxListensPerCaller',
  'maxStreamsPerCaller',
] as const;

/** A signing key long enough to resist guessing. */
const isUsableKey = (key: unknown): boolean =>
  (typeof key === 'string' && Buffer.byteLength(key) >= 16) || (Buffer.isBuffer(key) && key.length >= 16);

/** The problems of a set of options, as messages; empty when they can work. */
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
  if (options?.protocol !== undefined && !['dual', 'legacy', 'modern'].includes(options.protocol)) {
    problems.push(
      `McpModule option 'protocol' must be 'dual', 'legacy' or 'modern', got '${String(options.protocol)}'`,
    );
  }
  const keys = options?.requestStateKeys;
  if (keys !== undefined && (!Array.isArray(keys) || keys.some((key) => !isUsableKey(key)))) {
    problems.push("McpModule option 'requestStateKeys' must be a list of strings or Buffers of at least 16 bytes");
  }
  const hints = options?.cacheHints;
  if (
    hints !== undefined &&
    ((hints.ttlMs !== undefined && !(Number.isSafeInteger(hints.ttlMs) && hints.ttlMs >= 0)) ||
      (hints.scope !== undefined && hints.scope !== 'public' && hints.scope !== 'private'))
  ) {
    problems.push("McpModule option 'cacheHints' needs an integer ttlMs >= 0 and a scope of 'public' or 'private'");
  }
  if (options?.backend !== undefined && typeof options.backend?.connect !== 'function') {
    problems.push("McpModule option 'backend' must be an McpBackend (an object with connect())");
  }
  problems.push(...authOptionProblems(options?.auth));
  problems.push(...taskOptionProblems(options));
  return problems;
}

/**
 * Validates the options and applies defaults, once, where the module resolves them: a bad
 * setting fails the module's creation with an `McpDefinitionError` naming it.
 */
export function resolveMcpOptions(options: McpModuleOptions): ResolvedMcpOptions {
  const problems = validateMcpOptions(options);
  if (problems.length > 0) throw new McpDefinitionError(problems.join('; '));
  assertValidIcons(options.serverInfo.icons, 'serverInfo');
  const { backend: _backend, ...rest } = options;
  const maxSessions = Math.floor(positive(options.maxSessions, DEFAULT_MAX_SESSIONS));
  const maxListens = Math.floor(positive(options.maxListens, DEFAULT_MAX_LISTENS));
  return {
    ...rest,
    sessions: options.sessions ?? true,
    sessionIdleTimeoutMs: positive(options.sessionIdleTimeoutMs, DEFAULT_SESSION_IDLE_TIMEOUT_MS),
    maxSessions,
    sessionCleanupIntervalMs: positive(options.sessionCleanupIntervalMs, DEFAULT_SESSION_CLEANUP_INTERVAL_MS),
    pageSize: Math.floor(positive(options.pageSize, DEFAULT_PAGE_SIZE)),
    maxBodyBytes: positive(options.maxBodyBytes, DEFAULT_BODY_LIMIT_BYTES),
    validateProtocolVersionHeader: options.validateProtocolVersionHeader ?? true,
    wireProfile: options.wireProfile ?? 'strict',
    keepAliveMs: positive(options.keepAliveMs, DEFAULT_KEEP_ALIVE_MS),
    maxInFlightRequests: Math.floor(positive(options.maxInFlightRequests, DEFAULT_MAX_IN_FLIGHT_REQUESTS)),
    protocol: options.protocol ?? 'dual',
    requestStateTtlMs: positive(options.requestStateTtlMs, DEFAULT_REQUEST_STATE_TTL_MS),
    cacheHints: { ttlMs: 0, scope: 'public', ...options.cacheHints },
    maxListens,
    maxListensPerCaller: Math.floor(positive(options.maxListensPerCaller, perCallerShare(maxListens))),
    maxListenUris: Math.floor(positive(options.maxListenUris, DEFAULT_MAX_LISTEN_URIS)),
    maxSubscriptionsPerSession: Math.floor(
      positive(options.maxSubscriptionsPerSession, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION),
    ),
    replayBufferSize: Math.floor(positive(options.replayBufferSize, DEFAULT_REPLAY_BUFFER_SIZE)),
    maxStreamBufferBytes: positive(options.maxStreamBufferBytes, DEFAULT_STREAM_BUFFER_BYTES),
    // One stream per session at most is held (legacy SSE streams are sessions too): the instance's budget.
    maxStreamsPerCaller: Math.floor(positive(options.maxStreamsPerCaller, perCallerShare(maxSessions))),
    listChangedDebounceMs: options.listChangedDebounceMs ?? DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
    clientRequestTimeoutMs: positive(options.clientRequestTimeoutMs, DEFAULT_CLIENT_REQUEST_TIMEOUT_MS),
    maxArgumentDepth: Math.floor(positive(options.maxArgumentDepth, DEFAULT_MAX_ARGUMENT_DEPTH)),
    ...resolveTaskOptions(options),
  };
}
