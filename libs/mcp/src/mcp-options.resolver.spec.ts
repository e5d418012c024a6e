/**
 * The options' grouped shape: each setting of a group reaches the resolved options, and a name
 * that is no option (a typo, or a setting given outside its group) fails the module, naming it.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { McpDefinitionError } from './errors/mcp-bootstrap.errors.js';
import type { McpModuleOptions, McpOptionGroups } from './interfaces/mcp-module-options.interface.js';
import { resolveMcpOptions } from './mcp-options.resolver.js';

const SERVER_INFO = { name: 't', version: '1' };

/** Where each setting lives in its group, by its name in the resolved options. */
const PLACES = {
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
} as const satisfies Record<string, readonly [keyof McpOptionGroups, string]>;

/** A value for each setting that differs from its default, so a lost one shows. */
const SAMPLES: { [Name in keyof typeof PLACES]: unknown } = {
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

const settings = Object.keys(PLACES) as (keyof typeof PLACES)[];

afterEach(() => {
  jest.restoreAllMocks();
});

describe('a setting of a group', () => {
  it.each(settings)('%s reaches the resolved options from its group', (name) => {
    const [group, key] = PLACES[name];
    const resolved = resolveMcpOptions({ serverInfo: SERVER_INFO, [group]: { [key]: SAMPLES[name] } });
    expect((resolved as unknown as Record<string, unknown>)[name]).toEqual(SAMPLES[name]);
  });

  it.each(settings)('%s given outside its group fails the module, naming it', (name) => {
    const outside = () => resolveMcpOptions({ serverInfo: SERVER_INFO, [name]: SAMPLES[name] });
    expect(outside).toThrow(McpDefinitionError);
    expect(outside).toThrow(`McpModule has no option '${name}'`);
  });

  it('fails on a typo too, and names a very long name only in part', () => {
    const typo = () =>
      resolveMcpOptions({ serverInfo: SERVER_INFO, sesions: { max: 1 } } as unknown as McpModuleOptions);
    expect(typo).toThrow("McpModule has no option 'sesions': its options are serverInfo,");
    const long = () => resolveMcpOptions({ serverInfo: SERVER_INFO, ['x'.repeat(10_000)]: 1 });
    expect(long).toThrow(`'${'x'.repeat(100)}'`);
    expect(() => long()).not.toThrow('x'.repeat(101));
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
