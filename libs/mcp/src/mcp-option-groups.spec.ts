/**
 * The resolved options cut into groups: each group holds exactly its values (a service that
 * injects it sees nothing else), and every value the core reads is in some group.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Test } from '@nestjs/testing';
import type { ResolvedMcpOptions } from './interfaces/mcp-module-options.interface.js';
import {
  MCP_OPTION_GROUP_TOKENS,
  MCP_OPTION_GROUPS,
  optionGroup,
  type McpOptionGroup,
  type McpOptionGroupName,
} from './mcp-option-groups.js';
import { resolveMcpOptions } from './mcp-options.resolver.js';
import { McpModule } from './mcp.module.js';

const resolved = resolveMcpOptions({
  serverInfo: { name: 't', version: '1' },
  limits: { maxBodyBytes: 12_345, toolRateLimit: { limit: 3, windowMs: 1_000 } },
  sessions: { maxSubscriptions: 7 },
  skills: {},
});

/** What the module builds and nobody reads through a group: the module itself hands them on. */
const READ_BY_THE_MODULE = new Set<keyof ResolvedMcpOptions>(['telemetry']);

describe('option groups', () => {
  it.each(Object.keys(MCP_OPTION_GROUPS) as McpOptionGroupName[])('%s holds exactly its values', (name) => {
    const group = optionGroup(resolved, name) as Record<string, unknown>;
    expect(Object.keys(group).sort()).toEqual([...MCP_OPTION_GROUPS[name]].sort());
    for (const key of MCP_OPTION_GROUPS[name]) expect(group[key]).toBe(resolved[key]);
  });

  it('puts every resolved value in some group', () => {
    const grouped = new Set<string>(Object.values(MCP_OPTION_GROUPS).flat());
    const missing = Object.keys(resolved).filter(
      (key) => !grouped.has(key) && !READ_BY_THE_MODULE.has(key as keyof ResolvedMcpOptions),
    );
    expect(missing).toEqual([]);
  });

  it('is provided by the module, cut from the options it was given', async () => {
    const module = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({ serverInfo: { name: 't', version: '1' }, limits: { maxArgumentDepth: 9 }, http: false }),
      ],
    }).compile();
    try {
      const limits = module.get<McpOptionGroup<'limits'>>(MCP_OPTION_GROUP_TOKENS.limits, { strict: false });
      expect(limits.maxArgumentDepth).toBe(9);
      expect(Object.keys(limits).sort()).toEqual([...MCP_OPTION_GROUPS.limits].sort());
    } finally {
      await module.close();
    }
  });

  it('leaves the whole resolved options to the module, its backend, its testing module and the cutting itself', () => {
    const src = dirname(fileURLToPath(import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? files(join(dir, entry.name))
          : entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')
            ? [join(dir, entry.name)]
            : [],
      );
    // Reading it is naming its token in code (a comment naming it reads nothing); the token's
    // own definition is not a read.
    const readers = files(src)
      .filter((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .some(
            (line) =>
              /\bMCP_RESOLVED_OPTIONS\b/.test(line) &&
              !/^\s*(\*|\/\/)/.test(line) &&
              !/export const MCP_RESOLVED_OPTIONS/.test(line),
          ),
      )
      .map((file) => relative(src, file));
    expect(readers.sort()).toEqual(
      ['mcp-backend.providers.ts', 'mcp-option-groups.ts', 'mcp.module.ts', 'testing/mcp-testing-module.ts'].sort(),
    );
  });
});
