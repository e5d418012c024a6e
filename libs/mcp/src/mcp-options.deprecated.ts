import type {
  McpDeprecatedFlatOptions,
  McpModuleOptions,
  McpOptionGroups,
} from './interfaces/mcp-module-options.interface.js';
import { isObject } from './model/is-object.js';

/** A place in a group: the group's name and one of its option names. */
type Place = {
  [Group in keyof McpOptionGroups]: readonly [Group, keyof McpOptionGroups[Group]];
}[keyof McpOptionGroups];

/** Where each flat option lives since the options were grouped: its group and its name there. */
export const MOVED_OPTIONS = {
  sessionIdleTimeoutMs: ['sessions', 'idleTimeoutMs'],
  sessionCleanupIntervalMs: ['sessions', 'cleanupIntervalMs'],
  maxSessions: ['sessions', 'max'],
  maxSessionsPerPrincipal: ['sessions', 'maxPerCaller'],
  maxSubscriptionsPerSession: ['sessions', 'maxSubscriptions'],
  allowedOrigins: ['transport', 'allowedOrigins'],
  allowedHosts: ['transport', 'allowedHosts'],
  validateProtocolVersionHeader: ['transport', 'validateProtocolVersionHeader'],
  keepAliveMs: ['transport', 'keepAliveMs'],
  maxBodyBytes: ['limits', 'maxBodyBytes'],
  maxInFlightRequests: ['limits', 'maxInFlightRequests'],
  maxArgumentDepth: ['limits', 'maxArgumentDepth'],
  maxStreamsPerCaller: ['limits', 'maxStreamsPerCaller'],
  toolRateLimit: ['limits', 'toolRateLimit'],
  clientRequestTimeoutMs: ['limits', 'clientRequestTimeoutMs'],
  requestStateKeys: ['modern', 'requestStateKeys'],
  requestStateTtlMs: ['modern', 'requestStateTtlMs'],
  cacheHints: ['modern', 'cacheHints'],
  maxListens: ['modern', 'maxListens'],
  maxListensPerCaller: ['modern', 'maxListensPerCaller'],
  maxListenUris: ['modern', 'maxListenUris'],
  replayBufferSize: ['delivery', 'replayBufferSize'],
  maxStreamBufferBytes: ['delivery', 'maxStreamBufferBytes'],
  listChangedDebounceMs: ['delivery', 'listChangedDebounceMs'],
} as const satisfies { [Name in keyof Required<McpDeprecatedFlatOptions>]: Place };

type FlatName = keyof typeof MOVED_OPTIONS;

/** The options with every flat name moved into its group, and what the move found. */
export interface LiftedOptions {
  /** The options in their grouped shape only. */
  readonly options: McpModuleOptions;
  /** The flat names given, with their new place (`sessions.max`), for the deprecation warnings. */
  readonly moved: readonly { readonly name: string; readonly place: string }[];
  /** Names given both ways, as messages. */
  readonly conflicts: readonly string[];
}

/**
 * Moves the flat options of before the grouping into their groups. A group given as something
 * else than an object (`sessions: true`, or a mistake) keeps its meaning: `sessions: false`
 * with `maxSessions` becomes `sessions: { enabled: false, max }`, and any other value is left
 * for the validation to refuse.
 */
export function liftDeprecatedOptions(input: McpModuleOptions): LiftedOptions {
  const given = (Object.keys(MOVED_OPTIONS) as FlatName[]).filter((name) => input?.[name] !== undefined);
  if (given.length === 0) return { options: input, moved: [], conflicts: [] };
  const options: Record<string, unknown> = { ...input };
  const moved: { name: string; place: string }[] = [];
  const conflicts: string[] = [];
  for (const name of given) {
    const [group, key] = MOVED_OPTIONS[name];
    const place = `${group}.${key}`;
    delete options[name];
    let target = options[group];
    if (target === undefined || typeof target === 'boolean') {
      target = group === 'sessions' && typeof target === 'boolean' ? { enabled: target } : {};
    } else if (!isObject(target)) {
      continue;
    } else {
      target = { ...target };
    }
    const into = target as Record<string, unknown>;
    // No two flat names share a place: a value there is the application's own.
    if (into[key] !== undefined) {
      conflicts.push(
        `McpModule option '${name}' is the deprecated spelling of '${place}': give '${place}' only, not both`,
      );
      continue;
    }
    into[key] = input[name];
    options[group] = into;
    moved.push({ name, place });
  }
  return { options: options as unknown as McpModuleOptions, moved, conflicts };
}
