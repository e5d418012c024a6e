import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../../model/mcp-cache.interface.js';
import { META_SERVER_INFO } from '../../mcp.constants.js';
import { CACHE_HINTS, CACHEABLE as MARKED_CACHEABLE, type HintedResult } from '../../model/cache-hints.js';
import { RESULT_TYPE, type TypedResult } from '../../model/result-type.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** Results that carry caching hints (MCP 2026-07-28 `CacheableResult`); an extension's are marked (`cacheableResult`). */
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
  /** The `_meta` of a result whose handler put none there: one object, only ever serialized. */
  private readonly serverMeta: Readonly<Record<string, unknown>>;

  constructor(@McpOptions('modern') private readonly options: McpOptionGroup<'modern'>) {
    const { name, version, title } = options.serverInfo;
    this.serverInfo = { name, version, ...(title !== undefined ? { title } : {}) };
    this.serverMeta = Object.freeze({ [META_SERVER_INFO]: this.serverInfo });
  }

  /** A complete result of `method`. */
  complete(method: string, result: HintedResult & TypedResult, retried: boolean): Record<string, unknown> {
    const shaped = copyOf(result);
    shaped.resultType = result[RESULT_TYPE] ?? 'complete';
    shaped._meta = this.meta(result._meta);
    if (CACHEABLE.has(method) || result[MARKED_CACHEABLE]) {
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
    const shaped = copyOf(result);
    shaped._meta = this.serverMeta;
    return shaped;
  }

  /** `_meta` with the server's identity beside what the handler put there. */
  private meta(existing: unknown): Readonly<Record<string, unknown>> {
    if (typeof existing !== 'object' || existing === null) return this.serverMeta;
    const meta = copyOf(existing as Record<string, unknown>);
    meta[META_SERVER_INFO] = this.serverInfo;
    return meta;
  }
}

/**
 * A shallow copy of an object's own string keys, in order. Not `{ ...source, more }`: in V8 (Node
 * 20) properties added after a spread cost about a microsecond each, and this runs per request.
 */
function copyOf(source: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) copy[key] = source[key];
  return copy;
}
