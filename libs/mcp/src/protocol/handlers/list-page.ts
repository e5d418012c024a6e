import type { Page } from '../../registry/keyed-collection.js';

/**
 * The result of a list method: the wire descriptors under `key`, and `nextCursor` only when
 * more items follow (never null).
 */
export function listResult(
  key: string,
  page: Page<{ readonly descriptor: Readonly<Record<string, unknown>> }>,
): Record<string, unknown> {
  const result: Record<string, unknown> = { [key]: page.items.map((entry) => entry.descriptor) };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}
