import type { McpCacheHints, McpCacheScope } from './mcp-cache.interface.js';

/**
 * Where a handler leaves the caching hints of its result. A symbol key: `JSON.stringify`
 * ignores it, so legacy answers stay as they were; the modern shaper reads it.
 */
export const CACHE_HINTS = Symbol('mcp:cache-hints');

/**
 * Marks the result of a method the base protocol does not list as cacheable (an extension's
 * `CacheableResult`): the modern shaper then gives it `ttlMs` and `cacheScope` too.
 */
export const CACHEABLE = Symbol('mcp:cacheable');

/** A result that may carry hints for the modern shaper. */
export type HintedResult = Record<string, unknown> & { [CACHE_HINTS]?: McpCacheHints; [CACHEABLE]?: true };

/** Marks `result` as a `CacheableResult` (MCP 2026-07-28), with its hints when it has some. */
export function cacheableResult<T extends Record<string, unknown>>(result: T, hints?: McpCacheHints): T {
  (result as HintedResult)[CACHEABLE] = true;
  return withCacheHints(result, hints);
}

/** Attaches hints to a result (when there are any). */
export function withCacheHints<T extends Record<string, unknown>>(result: T, hints: McpCacheHints | undefined): T {
  if (hints) (result as HintedResult)[CACHE_HINTS] = hints;
  return result;
}

/**
 * The hints of a list page: the shortest `ttlMs` and the narrowest scope among its entries
 * (one private entry makes the page private); undefined when no entry overrides the defaults.
 */
export function combineCacheHints(entries: Iterable<{ readonly cache?: McpCacheHints }>): McpCacheHints | undefined {
  let ttlMs: number | undefined;
  let scope: McpCacheScope | undefined;
  for (const { cache } of entries) {
    if (!cache) continue;
    if (cache.ttlMs !== undefined) ttlMs = ttlMs === undefined ? cache.ttlMs : Math.min(ttlMs, cache.ttlMs);
    if (cache.scope === 'private' || (cache.scope === 'public' && scope === undefined)) scope = cache.scope;
  }
  if (ttlMs === undefined && scope === undefined) return undefined;
  return { ...(ttlMs !== undefined ? { ttlMs } : {}), ...(scope !== undefined ? { scope } : {}) };
}
