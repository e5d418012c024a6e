import { inspect } from 'node:util';
import type {
  McpModuleExtras,
  McpModuleOptions,
  McpOptionGroups,
  McpSessionsOptions,
  ResolvedMcpOptions,
} from './interfaces/mcp-module-options.interface.js';
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
import { resolveTaskOptions, taskOptionProblems } from './extensions/tasks/task-options.js';
import { telemetryOptionProblems } from './telemetry/telemetry-options.validation.js';
import { resolveSkillOptions, skillOptionProblems } from './extensions/skills/skill-options.js';
import { isObject } from './model/is-object.js';

/** A positive number, or the default (bad values were refused by `validateMcpOptions`). */
const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;

/**
 * The default per-caller share of an instance-wide cap: a tenth. One caller can then never take
 * the whole budget (ten callers at their caps are needed), while a client that opens a stream
 * or a listen per session it really uses stays far below it.
 */
const perCallerShare = (instanceCap: number): number => Math.max(1, Math.floor(instanceCap / 10));

/** The option groups, each with the names it knows (anything else in one is a mistake). */
const GROUP_KEYS: { [Group in keyof McpOptionGroups]: Record<keyof McpOptionGroups[Group], true> } = {
  sessions: {
    enabled: true,
    idleTimeoutMs: true,
    cleanupIntervalMs: true,
    max: true,
    maxPerCaller: true,
    maxSubscriptions: true,
  },
  transport: { allowedOrigins: true, allowedHosts: true, validateProtocolVersionHeader: true, keepAliveMs: true },
  limits: {
    maxBodyBytes: true,
    maxInFlightRequests: true,
    maxArgumentDepth: true,
    maxStreamsPerCaller: true,
    toolRateLimit: true,
    clientRequestTimeoutMs: true,
  },
  modern: {
    requestStateKeys: true,
    requestStateTtlMs: true,
    cacheHints: true,
    maxListens: true,
    maxListensPerCaller: true,
    maxListenUris: true,
  },
  delivery: { replayBufferSize: true, maxStreamBufferBytes: true, listChangedDebounceMs: true },
  tasks: {
    ttlMs: true,
    maxTtlMs: true,
    pollIntervalMs: true,
    handoffMs: true,
    maxPerCaller: true,
    maxPerInstance: true,
    maxResultBytes: true,
    shutdownGraceMs: true,
    maxBytesPerCaller: true,
    maxStored: true,
    maxStoredBytes: true,
    resultTtlMs: true,
    pollRateLimit: true,
  },
  telemetry: {
    tracing: true,
    metrics: true,
    recordResourceUris: true,
    recordTargetNames: true,
    attributes: true,
    clientTraceContext: true,
    sessionIds: true,
    maxAttributeLength: true,
    tracerProvider: true,
    meterProvider: true,
  },
  skills: {
    directories: true,
    directoryRead: true,
    maxFilesPerSkill: true,
    maxBytesPerSkill: true,
    requiredScopes: true,
    watch: true,
    maxRuntimeSkills: true,
  },
};

/** The options that must be positive numbers, by their place. */
const POSITIVE_OPTIONS = [
  'pageSize',
  'sessions.idleTimeoutMs',
  'sessions.cleanupIntervalMs',
  'sessions.max',
  'sessions.maxPerCaller',
  'sessions.maxSubscriptions',
  'transport.keepAliveMs',
  'limits.maxBodyBytes',
  'limits.maxInFlightRequests',
  'limits.maxArgumentDepth',
  'limits.maxStreamsPerCaller',
  'limits.clientRequestTimeoutMs',
  'modern.requestStateTtlMs',
  'modern.maxListens',
  'modern.maxListensPerCaller',
  'modern.maxListenUris',
  'delivery.replayBufferSize',
  'delivery.maxStreamBufferBytes',
] as const;

/** The value at a place (`sessions.max`) of grouped options; `sessions: true` holds nothing. */
function valueAt(options: McpModuleOptions, place: string): unknown {
  const [first, second] = place.split('.');
  const value = (options as unknown as Record<string, unknown>)?.[first];
  if (second === undefined) return value;
  return isObject(value) ? value[second] : undefined;
}

/** The session settings, whichever way `sessions` was given. */
const sessionsOf = ({ sessions }: McpModuleOptions): McpSessionsOptions =>
  typeof sessions === 'object' && sessions !== null ? sessions : { enabled: sessions ?? true };

/** A signing key long enough to resist guessing. */
const isUsableKey = (key: unknown): boolean =>
  (typeof key === 'string' && Buffer.byteLength(key) >= 16) || (Buffer.isBuffer(key) && key.length >= 16);

/** The problems of the groups' shapes: each an object (`sessions` a boolean too), of known names. */
function groupProblems(options: McpModuleOptions): string[] {
  const problems: string[] = [];
  for (const [group, known] of Object.entries(GROUP_KEYS)) {
    const keys = Object.keys(known);
    const value = (options as unknown as Record<string, unknown>)?.[group];
    if (value === undefined || (group === 'sessions' && typeof value === 'boolean')) continue;
    if (!isObject(value)) {
      problems.push(
        `McpModule option '${group}' must be an object${group === 'sessions' ? ' or a boolean' : ''}, got ${inspect(value)}`,
      );
      continue;
    }
    for (const key of Object.keys(value).filter((name) => !keys.includes(name))) {
      problems.push(`McpModule option '${group}.${key}' is unknown; '${group}' takes ${keys.join(', ')}`);
    }
  }
  const enabled = sessionsOf(options ?? ({} as McpModuleOptions)).enabled;
  if (enabled !== undefined && typeof enabled !== 'boolean') {
    problems.push(`McpModule option 'sessions.enabled' must be a boolean, got ${String(enabled)}`);
  }
  return problems;
}

/** The problems of a set of options in their grouped shape, as messages; empty when they can work. */
export function validateMcpOptions(options: McpModuleOptions): string[] {
  const problems: string[] = unknownOptionProblems(options);
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
  problems.push(...groupProblems(options));
  for (const place of POSITIVE_OPTIONS) {
    const value = valueAt(options, place);
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      problems.push(`McpModule option '${place}' must be a positive number, got ${inspect(value)}`);
    }
  }
  const rate = options?.limits?.toolRateLimit;
  if (
    rate !== undefined &&
    !(Number.isSafeInteger(rate?.limit) && rate.limit > 0 && Number.isFinite(rate.windowMs) && rate.windowMs > 0)
  ) {
    problems.push("McpModule option 'limits.toolRateLimit' needs a positive integer 'limit' and a positive 'windowMs'");
  }
  const debounce = options?.delivery?.listChangedDebounceMs;
  if (debounce !== undefined && !(Number.isFinite(debounce) && debounce >= 0)) {
    problems.push(`McpModule option 'delivery.listChangedDebounceMs' must be zero or more, got ${String(debounce)}`);
  }
  if (options?.protocol !== undefined && !['dual', 'legacy', 'modern'].includes(options.protocol)) {
    problems.push(
      `McpModule option 'protocol' must be 'dual', 'legacy' or 'modern', got '${String(options.protocol)}'`,
    );
  }
  const keys = options?.modern?.requestStateKeys;
  if (keys !== undefined && (!Array.isArray(keys) || keys.some((key) => !isUsableKey(key)))) {
    problems.push(
      "McpModule option 'modern.requestStateKeys' must be a list of strings or Buffers of at least 16 bytes",
    );
  }
  const hints = options?.modern?.cacheHints;
  if (
    hints !== undefined &&
    ((hints.ttlMs !== undefined && !(Number.isSafeInteger(hints.ttlMs) && hints.ttlMs >= 0)) ||
      (hints.scope !== undefined && hints.scope !== 'public' && hints.scope !== 'private'))
  ) {
    problems.push(
      "McpModule option 'modern.cacheHints' needs an integer ttlMs >= 0 and a scope of 'public' or 'private'",
    );
  }
  if (options?.backend !== undefined && typeof options.backend?.connect !== 'function') {
    problems.push("McpModule option 'backend' must be an McpBackend (an object with connect())");
  }
  problems.push(...authOptionProblems(options?.auth));
  problems.push(...taskOptionProblems(options?.tasks));
  problems.push(...telemetryOptionProblems(options?.telemetry));
  problems.push(...skillOptionProblems(options?.skills));
  return problems;
}

/**
 * Every option of `McpModule.forRoot()`, and its extras (which Nest hands the module apart): a
 * name outside them is a typo, or a setting that lives in a group (`maxSessions` is
 * `sessions.max`), and would otherwise be ignored without a word.
 */
const OPTION_NAMES = [
  'serverInfo',
  'instructions',
  'protocol',
  'protocolVersion',
  'wireProfile',
  'pageSize',
  'sessions',
  'transport',
  'limits',
  'modern',
  'delivery',
  'tasks',
  'telemetry',
  'skills',
  'backend',
  'auth',
  'isGlobal',
  'http',
  'ws',
  'sse',
  'stdio',
] as const satisfies readonly (keyof McpModuleOptions | keyof McpModuleExtras)[];
// Every option is named above: adding one to the interfaces without it fails to compile here.
type UnnamedOption = Exclude<keyof McpModuleOptions | keyof McpModuleExtras, (typeof OPTION_NAMES)[number]>;
const EVERY_OPTION_NAMED: [UnnamedOption] extends [never] ? true : UnnamedOption = true;
void EVERY_OPTION_NAMED;

function unknownOptionProblems(options: McpModuleOptions): string[] {
  if (!isObject(options)) return [];
  const known = new Set<string>(OPTION_NAMES);
  return Object.keys(options)
    .filter((name) => !known.has(name))
    .map(
      (name) =>
        `McpModule has no option '${name.slice(0, 100)}': its options are ${OPTION_NAMES.join(', ')}, the limits in their groups (see docs/options.md)`,
    );
}

/**
 * Validates the options and applies defaults, once, where the module resolves them: a bad
 * setting fails the module's creation with an `McpDefinitionError` naming it.
 */
export function resolveMcpOptions(options: McpModuleOptions): ResolvedMcpOptions {
  const problems = validateMcpOptions(options);
  if (problems.length > 0) throw new McpDefinitionError(problems.join('; '));
  assertValidIcons(options.serverInfo.icons, 'serverInfo');
  const sessions = sessionsOf(options);
  const { transport = {}, limits = {}, modern = {}, delivery = {} } = options;
  const maxSessions = Math.floor(positive(sessions.max, DEFAULT_MAX_SESSIONS));
  const maxListens = Math.floor(positive(modern.maxListens, DEFAULT_MAX_LISTENS));
  const unsetByDefault = {
    instructions: options.instructions,
    protocolVersion: options.protocolVersion,
    maxSessionsPerPrincipal: sessions.maxPerCaller,
    allowedOrigins: transport.allowedOrigins,
    allowedHosts: transport.allowedHosts,
    toolRateLimit: limits.toolRateLimit,
    requestStateKeys: modern.requestStateKeys,
    auth: options.auth,
  };
  return {
    // Absent stays absent: "not set" means no override and no limit.
    ...(Object.fromEntries(Object.entries(unsetByDefault).filter(([, value]) => value !== undefined)) as Partial<
      typeof unsetByDefault
    >),
    serverInfo: options.serverInfo,
    protocol: options.protocol ?? 'dual',
    wireProfile: options.wireProfile ?? 'strict',
    pageSize: Math.floor(positive(options.pageSize, DEFAULT_PAGE_SIZE)),
    sessions: sessions.enabled ?? true,
    sessionIdleTimeoutMs: positive(sessions.idleTimeoutMs, DEFAULT_SESSION_IDLE_TIMEOUT_MS),
    sessionCleanupIntervalMs: positive(sessions.cleanupIntervalMs, DEFAULT_SESSION_CLEANUP_INTERVAL_MS),
    maxSessions,
    maxSubscriptionsPerSession: Math.floor(positive(sessions.maxSubscriptions, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION)),
    validateProtocolVersionHeader: transport.validateProtocolVersionHeader ?? true,
    keepAliveMs: positive(transport.keepAliveMs, DEFAULT_KEEP_ALIVE_MS),
    maxBodyBytes: positive(limits.maxBodyBytes, DEFAULT_BODY_LIMIT_BYTES),
    maxInFlightRequests: Math.floor(positive(limits.maxInFlightRequests, DEFAULT_MAX_IN_FLIGHT_REQUESTS)),
    maxArgumentDepth: Math.floor(positive(limits.maxArgumentDepth, DEFAULT_MAX_ARGUMENT_DEPTH)),
    // One stream per session at most is held (legacy SSE streams are sessions too): the instance's budget.
    maxStreamsPerCaller: Math.floor(positive(limits.maxStreamsPerCaller, perCallerShare(maxSessions))),
    clientRequestTimeoutMs: positive(limits.clientRequestTimeoutMs, DEFAULT_CLIENT_REQUEST_TIMEOUT_MS),
    requestStateTtlMs: positive(modern.requestStateTtlMs, DEFAULT_REQUEST_STATE_TTL_MS),
    cacheHints: { ttlMs: 0, scope: 'public', ...modern.cacheHints },
    maxListens,
    maxListensPerCaller: Math.floor(positive(modern.maxListensPerCaller, perCallerShare(maxListens))),
    maxListenUris: Math.floor(positive(modern.maxListenUris, DEFAULT_MAX_LISTEN_URIS)),
    replayBufferSize: Math.floor(positive(delivery.replayBufferSize, DEFAULT_REPLAY_BUFFER_SIZE)),
    maxStreamBufferBytes: positive(delivery.maxStreamBufferBytes, DEFAULT_STREAM_BUFFER_BYTES),
    listChangedDebounceMs: delivery.listChangedDebounceMs ?? DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
    ...resolveTaskOptions(options.tasks),
    ...(options.skills !== undefined ? { skills: resolveSkillOptions(options.skills) } : {}),
    telemetry: options.telemetry ?? {},
  };
}
