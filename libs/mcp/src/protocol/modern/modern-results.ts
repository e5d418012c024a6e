import { Inject, Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../../interfaces/mcp-cache.interface.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { META_SERVER_INFO } from '../../mcp.constants.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import { CACHE_HINTS, type HintedResult } from './cache-hints.js';

/** Results that carry caching hints (MCP 2026-07-28 `CacheableResult`). */
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/**
 * Shapes modern-era results: `resultType` on every one, the server's identity in `_meta`, and
 * `ttlMs`/`cacheScope` on the cacheable ones (the handler's hints over the module's defaults;
 * never on a retry of a multi round-trip request, whose result depends on its inputs).
 */
@Injectable()
export class McpModernResults {
  private readonly serverInfo: Record<string, unknown>;

  constructor(@Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions) {
    const { name, version, title } = options.serverInfo;
    this.serverInfo = { name, version, ...(title !== undefined ? { title } : {}) };
  }

  /** A complete result of `method`. */
  complete(method: string, result: HintedResult, retried: boolean): Record<string, unknown> {
    const shaped: Record<string, unknown> = { ...result, resultType: 'complete', _meta: this.meta(result._meta) };
    if (CACHEABLE.has(method)) {
      const hints: McpCacheHints = retried
        ? { ttlMs: 0, scope: 'private' }
        : { ...this.options.cacheHints, ...result[CACHE_HINTS] };
      shaped.ttlMs = hints.ttlMs ?? 0;
      shaped.cacheScope = hints.scope ?? 'public';
    }
    return shaped;
  }

  /** An `InputRequiredResult` (never cacheable). */
  inputRequired(result: Record<string, unknown>): Record<string, unknown> {
    return { ...result, _meta: this.meta(undefined) };
  }

  /** `_meta` with the server's identity beside what the handler put there. */
  private meta(existing: unknown): Record<string, unknown> {
    const base = typeof existing === 'object' && existing !== null ? (existing as Record<string, unknown>) : {};
    return { ...base, [META_SERVER_INFO]: this.serverInfo };
  }
}
