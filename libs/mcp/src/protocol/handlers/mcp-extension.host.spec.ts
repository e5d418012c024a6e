import { describe, expect, it } from '@jest/globals';
import type { ChannelContext } from '../../context/channel-context.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';
import type { McpExtension } from '../../extension/mcp-extension.interface.js';
import type { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import type { McpToolRateLimiter } from '../tool-rate-limiter.js';
import { McpExtensionHost } from './mcp-extension.host.js';
import { McpMethods } from './mcp-methods.js';

/** What the host asked of the access policy and the rate limiter, in order. */
function setup(granted: readonly string[] = []) {
  const asked: string[] = [];
  const access = {
    assert: ({ requiredScopes }: { requiredScopes?: readonly string[] }) => {
      asked.push(`scopes:${requiredScopes?.join(',')}`);
      const missing = requiredScopes?.filter((scope) => !granted.includes(scope)) ?? [];
      if (missing.length > 0) throw new Error(`insufficient_scope ${missing.join(',')}`);
    },
  } as unknown as McpAccessPolicy;
  const rateLimiter = {
    take: async (_ctx: unknown, budget: string) => {
      asked.push(budget === 'toolCalls' ? 'rate' : `rate:${budget}`);
    },
  } as unknown as McpToolRateLimiter;
  const extensions = new McpExtensions();
  const methods = new McpMethods(extensions);
  const host = new McpExtensionHost(methods, extensions, access, rateLimiter);
  return { asked, host, methods, extensions };
}

const ctx = {} as ChannelContext;
const dispatch = {} as McpDispatchContext;

describe('McpExtensionHost', () => {
  it('serves an extension’s methods in the eras each names (both by default)', async () => {
    const { host, methods } = setup();
    host.plug({
      name: 'example.com/eras',
      methods: () => ({
        'example/both': { run: async () => ({ both: true }) },
        'example/legacy': { run: async () => ({}), eras: 'legacy' },
        'example/modern': { run: async () => ({}), eras: 'modern' },
      }),
    });
    expect(await methods.find('legacy', 'example/both')?.({}, ctx, dispatch)).toEqual({ both: true });
    expect(methods.find('modern', 'example/both')).toBeDefined();
    expect(methods.find('legacy', 'example/legacy')).toBeDefined();
    expect(methods.find('modern', 'example/legacy')).toBeUndefined();
    expect(methods.find('modern', 'example/modern')).toBeDefined();
    expect(methods.find('legacy', 'example/modern')).toBeUndefined();
  });

  it('applies the scopes, then the rate limit, to every method that asks, before it runs', async () => {
    const { host, methods, asked } = setup(['notes:read']);
    const ran: string[] = [];
    host.plug({
      name: 'example.com/rules',
      methods: () => ({
        'example/read': {
          run: async () => (ran.push('read'), {}),
          requiredScopes: ['notes:read'],
          rateLimited: true,
        },
        'example/write': { run: async () => (ran.push('write'), {}), requiredScopes: ['notes:write'] },
        'example/poll': { run: async () => (ran.push('poll'), {}), rateLimited: true },
        'example/free': { run: async () => (ran.push('free'), {}) },
        'example/task-poll': { run: async () => (ran.push('task-poll'), {}), rateLimited: 'taskRequests' },
      }),
    });
    await methods.find('modern', 'example/read')!({}, ctx, dispatch);
    expect(asked).toEqual(['scopes:notes:read', 'rate']);
    await expect(methods.find('legacy', 'example/write')!({}, ctx, dispatch)).rejects.toThrow(
      'insufficient_scope notes:write',
    );
    await methods.find('legacy', 'example/poll')!({}, ctx, dispatch);
    await methods.find('legacy', 'example/free')!({}, ctx, dispatch);
    await methods.find('modern', 'example/task-poll')!({}, ctx, dispatch);
    expect(asked).toEqual(['scopes:notes:read', 'rate', 'scopes:notes:write', 'rate', 'rate:taskRequests']);
    expect(ran).toEqual(['read', 'poll', 'free', 'task-poll']);
  });

  it('finds no method and declares no capability of an absent extension', () => {
    const { host, methods } = setup();
    let present = false;
    const extension: McpExtension = {
      name: 'example.com/absent',
      present: () => present,
      methods: () => ({ 'example/go': { run: async () => ({}) } }),
      capabilities: (capabilities) => ({ ...capabilities, extensions: { 'example.com/absent': { on: true } } }),
    };
    host.plug(extension);
    expect(methods.serves('example/go')).toBe(true);
    expect(methods.find('legacy', 'example/go')).toBeUndefined();
    expect(methods.capabilities().extensions).toBeUndefined();
    present = true;
    expect(methods.find('legacy', 'example/go')).toBeDefined();
    expect(methods.capabilities().extensions).toEqual({ 'example.com/absent': { on: true } });
    expect(methods.modernCapabilities().extensions).toEqual({ 'example.com/absent': { on: true } });
  });

  it('tells an extension which era it declares capabilities for', () => {
    const { host, methods } = setup();
    host.plug({ name: 'example.com/per-era', capabilities: (capabilities, era) => ({ ...capabilities, era }) });
    expect(methods.capabilities().era).toBe('legacy');
    expect(methods.modernCapabilities().era).toBe('modern');
  });

  it('refuses a second extension with the same name', () => {
    const { host } = setup();
    host.plug({ name: 'example.com/once' });
    expect(() => host.plug({ name: 'example.com/once' })).toThrow("Two MCP extensions are named 'example.com/once'");
  });
});
