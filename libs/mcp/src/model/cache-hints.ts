import type { McpCacheHints, McpCacheScope } from './mcp-cache.interface.js';

/**
 * Where a handler leaves the caching hints of its result. A symbol key: `JSON.stringify`
 * ignores it, so legacy answers stay as they were; the modern shaper reads it.
 */
export const CACHE_HINTS = Symbol('mcp:cache-hints');

/** A result that may carry hints for the modern shaper. */
export type HintedResult = Record<string, unknown> & { [CACHE_HINTS]?: McpCacheHints };

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
