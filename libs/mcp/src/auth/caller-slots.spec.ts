import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CallerSlots } from './caller-slots.js';

describe('CallerSlots', () => {
  it('holds each caller to its limit, apart from the others, and gives places back on release', () => {
    const slots = new CallerSlots(2);
    const first = slots.take('alice')!;
    expect(slots.take('alice')).toBeDefined();
    expect(slots.take('alice')).toBeUndefined();
    expect(slots.take('bob')).toBeDefined();
    first();
    expect(slots.count('alice')).toBe(1);
    expect(slots.take('alice')).toBeDefined();
  });

  it('shares one place between the things taken under one key, until the last one goes', () => {
    const slots = new CallerSlots(1);
    const older = slots.take('alice', 'get:s1')!;
    const newer = slots.take('alice', 'get:s1')!;
    expect(slots.take('alice', 'get:s2')).toBeUndefined();
    older();
    expect(slots.take('alice', 'get:s2')).toBeUndefined();
    newer();
    expect(slots.count('alice')).toBe(0);
    expect(slots.take('alice', 'get:s2')).toBeDefined();
  });

  it('counts a release once, however often it is called', () => {
    const slots = new CallerSlots(1);
    const release = slots.take('alice', 'k')!;
    slots.take('alice', 'k');
    release();
    release();
    expect(slots.count('alice')).toBe(1);
  });

  it('never counts a caller it cannot name (stdio)', () => {
    const slots = new CallerSlots(1);
    expect(slots.take(undefined)).toBeDefined();
    expect(slots.take(undefined)).toBeDefined();
    expect(slots.size).toBe(0);
  });

  it('after any sequence of takes and releases, holds what is unreleased, never above the limit', () => {
    const step = fc.record({
      caller: fc.constantFrom('a', 'b'),
      key: fc.constantFrom('k1', 'k2', 'k3', undefined),
      releaseIndex: fc.option(fc.nat(20)),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 40 }), (limit, steps) => {
        const slots = new CallerSlots(limit);
        const open: Array<{ caller: string; key: string; release: () => void }> = [];
        let unique = 0;
        for (const { caller, key, releaseIndex } of steps) {
          if (releaseIndex !== null && open.length > 0) {
            open.splice(releaseIndex % open.length, 1)[0].release();
            continue;
          }
          const name = key ?? `u${++unique}`;
          const release = slots.take(caller, key === undefined ? undefined : name);
          const keys = new Set(open.filter((o) => o.caller === caller).map((o) => o.key));
          // Refused exactly when the key is new to the caller and its places are full.
          expect(release === undefined).toBe(!keys.has(name) && keys.size >= limit);
          if (release) open.push({ caller, key: name, release });
        }
        for (const caller of ['a', 'b']) {
          const keys = new Set(open.filter((o) => o.caller === caller).map((o) => o.key));
          expect(slots.count(caller)).toBe(keys.size);
          expect(keys.size).toBeLessThanOrEqual(limit);
        }
        for (const { release } of open) release();
        expect(slots.size).toBe(0);
      }),
    );
  });
});
