import type { McpCacheHints } from '../../model/mcp-cache.interface.js';
import type { Page } from '../../registry/keyed-collection.js';
import { combineCacheHints, withCacheHints } from '../../model/cache-hints.js';

type Listed = { readonly descriptor: Readonly<Record<string, unknown>>; readonly cache?: McpCacheHints };

/**
 * The result of a list method: the wire descriptors under `key` (each entry's, or what
 * `describe` makes of it for this caller), and `nextCursor` only when more items follow (never
 * null), with the page's caching hints for the modern era.
 */
export function listResult<T extends Listed>(
  key: string,
  page: Page<T>,
  describe?: (entry: T) => Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {
    [key]: page.items.map((entry) => (describe ? describe(entry) : entry.descriptor)),
  };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return withCacheHints(result, combineCacheHints(page.items));
}
