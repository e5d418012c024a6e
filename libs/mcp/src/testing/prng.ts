/**
 * Test helpers shared by the library's specs (not part of the public API).
 * A small seeded PRNG (mulberry32), so "random" tests replay identically on every run.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random integer in [0, max). */
export const randomInt = (random: () => number, max: number): number => Math.floor(random() * max);

/** A random key of 1 to `maxLength` characters drawn from `alphabet`. */
export function randomKey(random: () => number, alphabet: string, maxLength = 8): string {
  const length = 1 + randomInt(random, maxLength);
  let key = '';
  for (let i = 0; i < length; i++) key += alphabet[randomInt(random, alphabet.length)];
  return key;
}

/** Shuffles a copy of `items` (Fisher–Yates). */
export function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = randomInt(random, i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
