import { McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';

/** One page of a list method. */
export interface Page<T> {
  items: T[];
  /** Present only when more items follow (never null). */
  nextCursor?: string;
}

const CURSOR_PREFIX = 'k1:';

/** Cursors are opaque to clients: base64url of a versioned last key. */
export const encodeCursor = (lastKey: string): string =>
  Buffer.from(CURSOR_PREFIX + lastKey, 'utf8').toString('base64url');

export function decodeCursor(cursor: unknown): string {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new McpInvalidParamsException('Invalid cursor: pass a nextCursor from an earlier page');
  }
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(CURSOR_PREFIX)) {
    throw new McpInvalidParamsException('Invalid cursor: pass a nextCursor from an earlier page');
  }
  return decoded.slice(CURSOR_PREFIX.length);
}

/**
 * A `Map` plus its keys kept sorted, paginated by key (keyset pagination): the cursor is the
 * last key served, so a walk never repeats a key and never skips one that existed throughout,
 * however many entries are added or removed between pages.
 */
export class KeyedCollection<T> {
  private readonly entries = new Map<string, T>();
  private readonly sortedKeys: string[] = [];
  /**
   * The entries by key, read-only: a lookup on every request (a tool by name) reads it directly,
   * without a call of `get` in between.
   */
  readonly byKey: ReadonlyMap<string, T> = this.entries;

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  /** Adds or replaces an entry; resolves to true when the key is new. */
  set(key: string, value: T): boolean {
    const isNew = !this.entries.has(key);
    this.entries.set(key, value);
    if (isNew) this.sortedKeys.splice(this.lowerBound(key), 0, key);
    return isNew;
  }

  delete(key: string): boolean {
    if (!this.entries.delete(key)) return false;
    this.sortedKeys.splice(this.lowerBound(key), 1);
    return true;
  }

  values(): IterableIterator<T> {
    return this.entries.values();
  }

  /**
   * The page after `cursor` (from the start without one). Throws `-32602` on a bad cursor. With
   * `filter`, only the entries it keeps are counted and served, so pages stay full.
   */
  page(cursor: unknown, pageSize: number, filter?: (value: T) => boolean): Page<T> {
    const start = cursor === undefined ? 0 : this.upperBound(decodeCursor(cursor));
    const items: T[] = [];
    let i = start;
    for (; i < this.sortedKeys.length && items.length < pageSize; i++) {
      const value = this.entries.get(this.sortedKeys[i])!;
      if (!filter || filter(value)) items.push(value);
    }
    const more = filter
      ? this.sortedKeys.slice(i).some((key) => filter(this.entries.get(key)!))
      : i < this.sortedKeys.length;
    return more ? { items, nextCursor: encodeCursor(this.sortedKeys[i - 1]) } : { items };
  }

  /** First index whose key is >= key. */
  private lowerBound(key: string): number {
    let low = 0;
    let high = this.sortedKeys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.sortedKeys[mid] < key) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** First index whose key is > key. */
  private upperBound(key: string): number {
    let low = 0;
    let high = this.sortedKeys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.sortedKeys[mid] <= key) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
