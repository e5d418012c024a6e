import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpTool } from '../decorators/index.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import type { ChannelContext } from '../context/channel-context.js';
import { McpExtensions } from '../extension/mcp-extensions.js';
import type { McpExtensionEra, McpExtensionMethod } from '../extension/mcp-extension.interface.js';
import { McpMethods } from '../protocol/handlers/mcp-methods.js';
import { McpToolRateLimiter } from '../protocol/tool-rate-limiter.js';
import { McpTestClient } from '../testing/mcp-testing-module.js';

const SKILLS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'test', 'fixtures', 'skills');

@Injectable()
class LongTools {
  @McpTool({ name: 'long', description: 'Runs as a task when asked', taskSupport: 'optional' })
  long() {
    return 'done';
  }
}

/** What a rule the host applies throws here, so a test sees which rule stopped the method, before it ran. */
class RuleApplied extends Error {}

const ERAS: readonly McpExtensionEra[] = ['legacy', 'modern'];
const servedIn = (method: McpExtensionMethod, era: McpExtensionEra) =>
  (method.eras ?? 'both') === 'both' || method.eras === era;
const ctx = {} as ChannelContext;
const dispatch = {} as McpDispatchContext;

/**
 * Every method every plugged extension contributes runs behind the rules it declares, applied
 * by the host in one place (`McpExtensionHost`), in each era that serves it: its scopes (403
 * before anything else), then its rate limit (the budget it names). An extension never applies
 * them itself, so this table holds for the ones the library ships (MCP Apps, skills, tasks) and
 * for the next one.
 */
describe('the rules every plugged extension’s methods get', () => {
  let client: McpTestClient;
  let methods: McpMethods;
  let plugged: McpExtensions;
  const taken: string[] = [];
  const asserted: (readonly string[] | undefined)[] = [];

  beforeAll(async () => {
    client = await McpTestClient.create({
      providers: [LongTools],
      options: { skills: { directories: [SKILLS], directoryRead: true } },
    });
    methods = client.module.get(McpMethods);
    plugged = client.module.get(McpExtensions);
    jest.spyOn(client.module.get(McpToolRateLimiter), 'take').mockImplementation((_ctx, budget) => {
      taken.push(budget ?? 'toolCalls');
      throw new RuleApplied(`rate:${budget}`);
    });
    jest.spyOn(client.module.get(McpAccessPolicy), 'assert').mockImplementation(({ requiredScopes }) => {
      asserted.push(requiredScopes);
      throw new RuleApplied(`scopes:${requiredScopes?.join(',')}`);
    });
  });
  afterAll(() => client.close());

  it('plugs MCP Apps, skills and tasks, each present here', () => {
    const names = plugged.all().map((extension) => extension.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'io.modelcontextprotocol/ui',
        'io.modelcontextprotocol/skills',
        'io.modelcontextprotocol/tasks',
      ]),
    );
    for (const extension of plugged.all()) {
      if (extension.name !== 'io.modelcontextprotocol/ui') expect(extension.present?.() ?? true).toBe(true);
    }
  });

  it('counts every tasks/* method of both eras against the task requests’ rate limit', () => {
    const tasks = plugged.all().find((extension) => extension.name === 'io.modelcontextprotocol/tasks')!;
    const contributed = Object.entries(tasks.methods!());
    expect(contributed.map(([name, method]) => [name, method.eras ?? 'both', method.rateLimited]).sort()).toEqual([
      ['tasks/cancel', 'both', 'taskRequests'],
      ['tasks/get', 'both', 'taskRequests'],
      ['tasks/list', 'legacy', 'taskRequests'],
      ['tasks/result', 'legacy', 'taskRequests'],
      ['tasks/update', 'modern', 'taskRequests'],
    ]);
  });

  const rows = () =>
    plugged
      .all()
      .flatMap((extension) =>
        Object.entries(extension.methods?.() ?? {}).flatMap(([name, method]) =>
          ERAS.map((era) => ({ extension: extension.name, name, method, era })),
        ),
      );

  it('serves each method in the eras it names, and only there', () => {
    const served = rows().map(({ name, method, era }) => [
      name,
      era,
      methods.find(era, name) !== undefined,
      servedIn(method, era),
    ]);
    expect(served.length).toBeGreaterThanOrEqual(8);
    for (const [name, era, found, expected] of served)
      expect({ name, era, found }).toEqual({ name, era, found: expected });
  });

  it('applies each method’s scopes, then its rate limit, before it runs, in every era that serves it', async () => {
    for (const { extension, name, method, era } of rows()) {
      if (!servedIn(method, era)) continue;
      const fn = methods.find(era, name)!;
      taken.length = 0;
      asserted.length = 0;
      const row = `${extension} ${name} (${era})`;
      if (method.requiredScopes?.length) {
        await expect(fn({}, ctx, dispatch)).rejects.toThrow(`scopes:${method.requiredScopes.join(',')}`);
        expect({ row, asserted, taken }).toEqual({ row, asserted: [method.requiredScopes], taken: [] });
      } else if (method.rateLimited) {
        const budget = method.rateLimited === true ? 'toolCalls' : method.rateLimited;
        await expect(fn({}, ctx, dispatch)).rejects.toThrow(`rate:${budget}`);
        expect({ row, asserted, taken }).toEqual({ row, asserted: [], taken: [budget] });
      } else {
        // No rule asked: the host adds none (a method that checks scopes per item does so inside).
        await fn({}, ctx, dispatch).catch(() => undefined);
        expect({ row, taken }).toEqual({ row, taken: [] });
      }
    }
  });
});
