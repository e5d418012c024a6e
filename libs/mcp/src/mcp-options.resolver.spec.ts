/**
 * The options' grouped shape, and the flat names of before the grouping: each flat name gives
 * the same resolved options as its place in a group, with one deprecation warning through
 * Nest's Logger naming that place; a name given both ways fails, naming both.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { McpDefinitionError } from './errors/mcp-bootstrap.errors.js';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface.js';
import { MOVED_OPTIONS } from './mcp-options.deprecated.js';
import { resolveMcpOptions } from './mcp-options.resolver.js';

const SERVER_INFO = { name: 't', version: '1' };

/** A value for each moved option that differs from its default, so a lost one shows. */
const SAMPLES: { [Name in keyof typeof MOVED_OPTIONS]: unknown } = {
  sessionIdleTimeoutMs: 1_234,
  sessionCleanupIntervalMs: 567,
  maxSessions: 42,
  maxSessionsPerPrincipal: 3,
  maxSubscriptionsPerSession: 7,
  allowedOrigins: ['https://app.example.com'],
  allowedHosts: ['mcp.example.com'],
  validateProtocolVersionHeader: false,
  keepAliveMs: 999,
  maxBodyBytes: 2_048,
  maxInFlightRequests: 9,
  maxArgumentDepth: 8,
  maxStreamsPerCaller: 4,
  toolRateLimit: { limit: 5, windowMs: 1_000 },
  clientRequestTimeoutMs: 3_000,
  requestStateKeys: ['k'.repeat(32)],
  requestStateTtlMs: 60_000,
  cacheHints: { ttlMs: 5_000, scope: 'private' },
  maxListens: 30,
  maxListensPerCaller: 6,
  maxListenUris: 11,
  replayBufferSize: 12,
  maxStreamBufferBytes: 4_096,
  listChangedDebounceMs: 0,
};

const flatNames = Object.keys(MOVED_OPTIONS) as (keyof typeof MOVED_OPTIONS)[];

/** The grouped spelling of one flat option. */
const grouped = (name: keyof typeof MOVED_OPTIONS): Partial<McpModuleOptions> => {
  const [group, key] = MOVED_OPTIONS[name];
  return { [group]: { [key]: SAMPLES[name] } };
};

const warnings = () => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

afterEach(() => {
  jest.restoreAllMocks();
});

describe('the flat option names of before the grouping', () => {
  it.each(flatNames)('%s resolves as its place in a group, with one warning naming that place', (name) => {
    const warn = warnings();
    const [group, key] = MOVED_OPTIONS[name];

    const fromFlat = resolveMcpOptions({ serverInfo: SERVER_INFO, [name]: SAMPLES[name] });
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      `McpModule option '${name}' is deprecated and goes in the next minor version: use '${group}.${key}' (see docs/options.md)`,
    ]);
    warn.mockClear();

    const fromGroup = resolveMcpOptions({ serverInfo: SERVER_INFO, ...grouped(name) });
    expect(warn).not.toHaveBeenCalled();
    expect(fromFlat).toEqual(fromGroup);
    // The sample reached the resolved options (its flat name is the resolved options' own).
    expect((fromGroup as unknown as Record<string, unknown>)[name]).toEqual(SAMPLES[name]);
  });

  it('every flat name at once resolves as every group at once', () => {
    const warn = warnings();
    const all = Object.fromEntries(flatNames.map((name) => [name, SAMPLES[name]]));
    const groups: Record<string, Record<string, unknown>> = {};
    for (const name of flatNames) {
      const [group, key] = MOVED_OPTIONS[name];
      (groups[group] ??= {})[key] = SAMPLES[name];
    }

    expect(resolveMcpOptions({ serverInfo: SERVER_INFO, ...all })).toEqual(
      resolveMcpOptions({ serverInfo: SERVER_INFO, ...groups }),
    );
    expect(warn).toHaveBeenCalledTimes(flatNames.length);
  });

  it('joins a flat name to the rest of its group, and keeps sessions: false', () => {
    warnings();
    const resolved = resolveMcpOptions({
      serverInfo: SERVER_INFO,
      sessions: false,
      maxSessions: 5,
      limits: { maxBodyBytes: 1_000 },
      maxInFlightRequests: 3,
    });
    expect(resolved).toMatchObject({ sessions: false, maxSessions: 5, maxBodyBytes: 1_000, maxInFlightRequests: 3 });
  });

  it('refuses a name given both ways, naming both, even with the same value', () => {
    warnings();
    const both = () =>
      resolveMcpOptions({ serverInfo: SERVER_INFO, maxSessions: 5, sessions: { max: 5 }, keepAliveMs: 1 });
    expect(both).toThrow(McpDefinitionError);
    expect(both).toThrow(
      "McpModule option 'maxSessions' is the deprecated spelling of 'sessions.max': give 'sessions.max' only, not both",
    );
  });
});

describe('the grouped options', () => {
  it('resolve to the same defaults as no options at all', () => {
    expect(
      resolveMcpOptions({
        serverInfo: SERVER_INFO,
        sessions: {},
        transport: {},
        limits: {},
        modern: {},
        delivery: {},
      }),
    ).toEqual(resolveMcpOptions({ serverInfo: SERVER_INFO }));
  });

  it('take sessions as a boolean or an object', () => {
    expect(resolveMcpOptions({ serverInfo: SERVER_INFO, sessions: false }).sessions).toBe(false);
    expect(resolveMcpOptions({ serverInfo: SERVER_INFO, sessions: { enabled: false } }).sessions).toBe(false);
    expect(resolveMcpOptions({ serverInfo: SERVER_INFO, sessions: { max: 3 } })).toMatchObject({
      sessions: true,
      maxSessions: 3,
    });
  });

  it('leave unset what is unset by default', () => {
    const resolved = resolveMcpOptions({ serverInfo: SERVER_INFO, sessions: {}, limits: {} });
    for (const name of ['maxSessionsPerPrincipal', 'toolRateLimit', 'allowedOrigins', 'requestStateKeys', 'auth'])
      expect(resolved).not.toHaveProperty(name);
  });

  it('name the place of a bad value, an unknown name in a group, and a group that is no object', () => {
    const resolve = (options: object) => () => resolveMcpOptions({ serverInfo: SERVER_INFO, ...options });
    expect(resolve({ sessions: { max: 0 } })).toThrow(
      "McpModule option 'sessions.max' must be a positive number, got 0",
    );
    expect(resolve({ delivery: { replayBufferSize: '5' } })).toThrow(
      "McpModule option 'delivery.replayBufferSize' must be a positive number, got '5'",
    );
    expect(resolve({ sessions: { maxPerPrincipal: 2 } })).toThrow(
      "McpModule option 'sessions.maxPerPrincipal' is unknown; 'sessions' takes enabled, idleTimeoutMs, cleanupIntervalMs, max, maxPerCaller, maxSubscriptions",
    );
    expect(resolve({ limits: 5 })).toThrow("McpModule option 'limits' must be an object, got 5");
    expect(resolve({ sessions: 'yes' })).toThrow("McpModule option 'sessions' must be an object or a boolean");
    expect(resolve({ sessions: { enabled: 'no' } })).toThrow("McpModule option 'sessions.enabled' must be a boolean");
    expect(resolve({ limits: { toolRateLimit: { limit: 0, windowMs: 1 } } })).toThrow(
      "McpModule option 'limits.toolRateLimit' needs a positive integer 'limit' and a positive 'windowMs'",
    );
    expect(resolve({ modern: { requestStateKeys: ['short'] } })).toThrow(
      "McpModule option 'modern.requestStateKeys' must be a list of strings or Buffers of at least 16 bytes",
    );
  });
});
