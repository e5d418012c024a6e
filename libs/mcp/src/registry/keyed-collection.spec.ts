import { McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';
import { randomInt, randomKey, seededRandom, shuffled } from '../testing/prng.js';
import { thrownBy } from '../testing/thrown.js';
import { decodeCursor, encodeCursor, KeyedCollection, type Page } from './keyed-collection.js';

const collectionOf = (keys: readonly string[]): KeyedCollection<string> => {
  const collection = new KeyedCollection<string>();
  for (const key of keys) collection.set(key, `value:${key}`);
  return collection;
};

/** Walks every page from the start; `between` runs after each page that has a next cursor. */
function walk<T>(collection: KeyedCollection<T>, pageSize: number, between?: () => void): Page<T>[] {
  const pages: Page<T>[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100_000; guard++) {
    const page = collection.page(cursor, pageSize);
    pages.push(page);
    if (!('nextCursor' in page)) return pages;
    cursor = page.nextCursor;
    between?.();
  }
  throw new Error('The walk never ended');
}

const expectInvalidParams = (fn: () => unknown): void => {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(McpInvalidParamsException);
  expect((error as McpInvalidParamsException).code).toBe(-32602);
  expect((error as McpInvalidParamsException).toJsonRpcError()).toMatchObject({
    code: -32602,
    message: 'Invalid params',
    data: { detail: expect.stringContaining('cursor') },
  });
};

describe('KeyedCollection', () => {
  const random = seededRandom(0x5eed);
  const keys = Array.from({ length: 25 }, (_, i) => `key-${String(i).padStart(2, '0')}`);
  const inKeyOrder = [...keys].sort();

  describe('pagination', () => {
    it.each([1, 3, 100])('walks every item once, in key order, with page size %i', (pageSize) => {
      const collection = collectionOf(shuffled(random, keys));

      const pages = walk(collection, pageSize);

      expect(pages.flatMap((page) => page.items)).toEqual(inKeyOrder.map((key) => `value:${key}`));
      expect(pages).toHaveLength(Math.ceil(keys.length / pageSize));
      for (const page of pages.slice(0, -1)) {
        expect(page.items).toHaveLength(pageSize);
        expect(typeof page.nextCursor).toBe('string');
      }
    });

    it('leaves nextCursor out of the last page (no null or undefined member)', () => {
      const collection = collectionOf(keys);

      const last = walk(collection, 10).at(-1)!;

      expect('nextCursor' in last).toBe(false);
      expect(Object.keys(last)).toEqual(['items']);
    });

    it('ends on a full page when the size divides the count (no trailing empty page)', () => {
      const collection = collectionOf(['a', 'b', 'c', 'd', 'e', 'f']);

      const pages = walk(collection, 3);

      expect(pages.map((page) => page.items)).toEqual([
        ['value:a', 'value:b', 'value:c'],
        ['value:d', 'value:e', 'value:f'],
      ]);
      expect('nextCursor' in pages[1]).toBe(false);
    });

    it('answers an empty collection with one empty page and no cursor', () => {
      const page = new KeyedCollection<string>().page(undefined, 10);

      expect(page).toStrictEqual({ items: [] });
    });

    it('sorts keys by code unit, case-sensitively', () => {
      const collection = collectionOf(['b', 'B', 'a', 'A', '_', '.', '-', '0']);

      expect(collection.page(undefined, 100).items).toEqual(
        ['-', '.', '0', 'A', 'B', '_', 'a', 'b'].map((key) => `value:${key}`),
      );
    });

    it('continues after the cursor key even when that key was deleted meanwhile', () => {
      const collection = collectionOf(['a', 'b', 'c', 'd']);
      const first = collection.page(undefined, 2);

      collection.delete('b');

      expect(collection.page(first.nextCursor, 2)).toStrictEqual({ items: ['value:c', 'value:d'] });
    });

    it('answers a cursor past the last key with an empty last page', () => {
      const collection = collectionOf(['a', 'b']);

      expect(collection.page(encodeCursor('zzz'), 10)).toStrictEqual({ items: [] });
    });

    it('makes opaque cursors that round-trip any key, including unicode and the prefix itself', () => {
      for (const key of ['', 'a', 'k1:x', 'file:///notes/ünïcødé.md', '🙂', 'a/b?c=d&e']) {
        const cursor = encodeCursor(key);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeCursor(cursor)).toBe(key);
      }
    });
  });

  describe('invalid cursors', () => {
    const foreignBase64 = Buffer.from('offset:10', 'utf8').toString('base64url');

    it.each([
      ['a single letter', 'x'],
      ['punctuation', '!!'],
      ['the empty string', ''],
      ['base64 without the cursor prefix', foreignBase64],
      ['standard base64 with padding', Buffer.from('k1:a').toString('base64')],
      ['a number', 42],
      ['null', null],
      ['an object', { key: 'a' }],
      ['an array', ['a']],
      ['a boolean', true],
    ])('rejects %s with -32602', (_label, cursor) => {
      const collection = collectionOf(keys);

      expectInvalidParams(() => collection.page(cursor, 10));
    });
  });

  describe('map semantics', () => {
    it('reports whether set added a key, and replaces values in place', () => {
      const collection = new KeyedCollection<number>();

      expect(collection.set('a', 1)).toBe(true);
      expect(collection.set('a', 2)).toBe(false);

      expect(collection.size).toBe(1);
      expect(collection.get('a')).toBe(2);
      expect(collection.page(undefined, 10).items).toEqual([2]);
    });

    it('deletes only existing keys and keeps the order index in step', () => {
      const collection = collectionOf(['a', 'b', 'c']);

      expect(collection.delete('zz')).toBe(false);
      expect(collection.delete('b')).toBe(true);
      expect(collection.delete('b')).toBe(false);

      expect(collection.has('b')).toBe(false);
      expect(collection.page(undefined, 10).items).toEqual(['value:a', 'value:c']);
    });

    it('treats prototype names as ordinary keys', () => {
      const collection = new KeyedCollection<string>();

      expect(collection.get('__proto__')).toBeUndefined();
      expect(collection.has('constructor')).toBe(false);
      collection.set('__proto__', 'p');

      expect(collection.get('__proto__')).toBe('p');
      expect(collection.page(undefined, 10).items).toEqual(['p']);
    });
  });

  describe('concurrent registration while a client pages', () => {
    it.each([0x1234, 0xbeef, 7])(
      'serves every key that lives through the walk exactly once, never a duplicate (seed %i)',
      (seed) => {
        const rng = seededRandom(seed);
        const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:/';
        const stable = new Set<string>();
        while (stable.size < 300) stable.add(`${randomKey(rng, alphabet, 6)}`);
        const collection = new KeyedCollection<string>();
        for (const key of stable) collection.set(key, key);
        const churn: string[] = [];
        let operations = 0;

        const pages = walk(collection, 10, () => {
          // Between two pages, other keys come and go: 250 operations per page, thousands per walk.
          for (let i = 0; i < 250; i++) {
            operations++;
            if (churn.length > 0 && rng() < 0.45) {
              const victim = churn.splice(randomInt(rng, churn.length), 1)[0];
              expect(collection.delete(victim)).toBe(true);
            } else {
              const key = randomKey(rng, alphabet, 6);
              if (stable.has(key) || collection.has(key)) continue;
              collection.set(key, key);
              churn.push(key);
            }
          }
        });

        const served = pages.flatMap((page) => page.items);
        expect(operations).toBeGreaterThan(2_000);
        expect(new Set(served).size).toBe(served.length);
        expect(served.filter((key) => stable.has(key)).sort()).toEqual([...stable].sort());
        for (let i = 1; i < served.length; i++) expect(served[i - 1] < served[i]).toBe(true);
      },
    );
  });
});

describe('KeyedCollection pages with a filter', () => {
  const collection = collectionOf(Array.from({ length: 10 }, (_, i) => `k${i}`));
  const even = (value: string) => Number(value.slice(-1)) % 2 === 0;

  it('serves full pages of the entries the filter keeps, and a cursor only when more are kept', () => {
    const first = collection.page(undefined, 2, even);
    expect(first.items).toEqual(['value:k0', 'value:k2']);
    const second = collection.page(first.nextCursor, 2, even);
    expect(second.items).toEqual(['value:k4', 'value:k6']);
    const last = collection.page(second.nextCursor, 2, even);
    expect(last).toEqual({ items: ['value:k8'] });
  });

  it('ends without a cursor when the rest is filtered out', () => {
    const page = collection.page(undefined, 5, (value) => value === 'value:k1' || value === 'value:k3');
    expect(page).toEqual({ items: ['value:k1', 'value:k3'] });
  });
});
