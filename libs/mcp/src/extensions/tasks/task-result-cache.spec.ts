import { describe, expect, it } from '@jest/globals';
import { NO_RESULT, TaskResultCache } from './task-result-cache.js';

const result = (bytes: number) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] });

describe('TaskResultCache', () => {
  it('keeps results up to its bytes, the least recently read out first', () => {
    const cache = new TaskResultCache(3_000);
    cache.set('a', result(1_000));
    cache.set('b', result(1_000));
    expect(cache.get('a')).toEqual(result(1_000));
    cache.set('c', result(1_000));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('never keeps a result larger than all of it, and bounds entries without a result too', () => {
    const cache = new TaskResultCache(1_000);
    cache.set('big', result(2_000));
    expect(cache.get('big')).toBeUndefined();
    for (let n = 0; n < 100; n++) cache.set(`none-${n}`, NO_RESULT);
    expect(cache.size).toBeLessThan(10);
    expect(cache.get('none-99')).toBe(NO_RESULT);
  });
});
