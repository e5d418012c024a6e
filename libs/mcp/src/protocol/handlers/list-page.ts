import type { McpCacheHints } from '../../model/mcp-cache.interface.js';
import type { Page } from '../../registry/keyed-collection.js';
import { combineCacheHints, withCacheHints } from '../../model/cache-hints.js';

/**
 * The result of a list method: the wire descriptors under `key`, and `nextCursor` only when
 * more items follow (never null), with the page's caching hints for the modern era.
 */
export function listResult(
  key: string,
  page: Page<{ readonly descriptor: Readonly<Record<string, unknown>>; readonly cache?: McpCacheHints }>,
): Record<string, unknown> {
  const result: Record<string, unknown> = { [key]: page.items.map((entry) => entry.descriptor) };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return withCacheHints(result, combineCacheHints(page.items));
}
