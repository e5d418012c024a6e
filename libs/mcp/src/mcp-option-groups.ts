import { Inject, type Provider } from '@nestjs/common';
import type { ResolvedMcpOptions } from './interfaces/mcp-module-options.interface.js';
import { MCP_RESOLVED_OPTIONS } from './mcp.constants.js';

/**
 * The resolved options cut into the groups the core's services read. A service injects the one
 * group it needs (`@McpOptions('limits')`) and sees nothing else, so what a service depends on
 * is in its constructor, and a new option reaches only the services of its group. The options
 * are resolved once (`resolveMcpOptions`) and cut once, when the module is built.
 *
 * The groups follow what the core's parts read, not only the groups users write: a value two
 * parts need (the eras served, the body limit) is in the group of each.
 */
export const MCP_OPTION_GROUPS = {
  /** What the server says of itself, the eras it serves, list pages. */
  server: [
    'serverInfo',
    'instructions',
    'protocol',
    'protocolVersion',
    'wireProfile',
    'pageSize',
    'sessions',
    'maxArgumentDepth',
  ],
  /** Sessions: whether there are any, their life and their caps, and their subscriptions. */
  sessions: [
    'sessions',
    'wireProfile',
    'sessionIdleTimeoutMs',
    'sessionCleanupIntervalMs',
    'maxSessions',
    'maxSessionsPerPrincipal',
    'maxSubscriptionsPerSession',
  ],
  /** What the transports frame and hold: bodies, streams, origins, the eras and sessions they serve. */
  transport: [
    'protocol',
    'sessions',
    'maxSessions',
    'allowedOrigins',
    'allowedHosts',
    'validateProtocolVersionHeader',
    'keepAliveMs',
    'maxBodyBytes',
    'maxInFlightRequests',
    'maxStreamsPerCaller',
    'maxStreamBufferBytes',
  ],
  /** Bounds on what a request may ask: argument depth, rate limits, the wait for a client's answer. */
  limits: ['maxArgumentDepth', 'toolRateLimit', 'taskPollRateLimit', 'clientRequestTimeoutMs'],
  /** The 2026-07-28 era: request state, cache hints, listens. */
  modern: [
    'serverInfo',
    'maxArgumentDepth',
    'requestStateKeys',
    'requestStateTtlMs',
    'cacheHints',
    'maxListens',
    'maxListensPerCaller',
    'maxListenUris',
  ],
  /** Notifications: replay, stream buffers, the list-changed debounce. */
  delivery: ['replayBufferSize', 'maxStreamBufferBytes', 'listChangedDebounceMs'],
  /** Tasks (docs/tasks.md). */
  tasks: [
    'maxArgumentDepth',
    'maxListenUris',
    'pageSize',
    'taskTtlMs',
    'maxTaskTtlMs',
    'taskPollIntervalMs',
    'taskHandoffMs',
    'maxTasksPerPrincipal',
    'maxTasksPerInstance',
    'maxTaskResultBytes',
    'taskShutdownGraceMs',
    'maxTaskBytesPerCaller',
    'maxStoredTasks',
    'maxStoredTaskBytes',
    'taskResultTtlMs',
    'taskPollRateLimit',
  ],
  /** Skills (docs/skills.md), with the list page size. */
  skills: ['skills', 'pageSize'],
  /** Authorization (docs/authorization.md), with what the metadata route names. */
  auth: ['auth', 'serverInfo'],
} as const satisfies Record<string, readonly (keyof ResolvedMcpOptions)[]>;

export type McpOptionGroupName = keyof typeof MCP_OPTION_GROUPS;

/** The resolved options of one group. */
export type McpOptionGroup<Name extends McpOptionGroupName> = Pick<
  ResolvedMcpOptions,
  (typeof MCP_OPTION_GROUPS)[Name][number]
>;

/** The DI token of each group. */
export const MCP_OPTION_GROUP_TOKENS = Object.fromEntries(
  Object.keys(MCP_OPTION_GROUPS).map((name) => [name, Symbol(`MCP_OPTIONS_${name.toUpperCase()}`)]),
) as Record<McpOptionGroupName, symbol>;

/** Injects one group of the resolved options: `@McpOptions('limits') limits: McpOptionGroup<'limits'>`. */
export const McpOptions = (group: McpOptionGroupName): ParameterDecorator => Inject(MCP_OPTION_GROUP_TOKENS[group]);

/** One group cut from the resolved options: its own object, holding only its values. */
export function optionGroup<Name extends McpOptionGroupName>(
  options: ResolvedMcpOptions,
  group: Name,
): McpOptionGroup<Name> {
  const picked: Record<string, unknown> = {};
  for (const key of MCP_OPTION_GROUPS[group]) picked[key] = options[key];
  return picked as McpOptionGroup<Name>;
}

/** A provider per group, each cut once from the resolved options. */
export const MCP_OPTION_GROUP_PROVIDERS: Provider[] = (Object.keys(MCP_OPTION_GROUPS) as McpOptionGroupName[]).map(
  (group) => ({
    provide: MCP_OPTION_GROUP_TOKENS[group],
    useFactory: (options: ResolvedMcpOptions) => optionGroup(options, group),
    inject: [MCP_RESOLVED_OPTIONS],
  }),
);
