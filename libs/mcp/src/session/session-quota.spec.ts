import { describe, expect, it } from '@jest/globals';
import { SessionQuota } from './session-quota.js';

describe('SessionQuota', () => {
  it('holds each caller to its limit and gives places back when sessions end', () => {
    const quota = new SessionQuota();
    expect(quota.take('alice', 's1', 2)).toBe(true);
    expect(quota.take('alice', 's2', 2)).toBe(true);
    expect(quota.take('alice', 's3', 2)).toBe(false);
    expect(quota.take('bob', 's4', 2)).toBe(true);
    quota.release('s1');
    expect(quota.count('alice')).toBe(1);
    expect(quota.take('alice', 's5', 2)).toBe(true);
  });

  it('ignores sessions it never counted, and forgets callers without sessions', () => {
    const quota = new SessionQuota();
    quota.release('unknown');
    quota.take('alice', 's1', 1);
    quota.release('s1');
    quota.release('s1');
    expect(quota.count('alice')).toBe(0);
  });
});
