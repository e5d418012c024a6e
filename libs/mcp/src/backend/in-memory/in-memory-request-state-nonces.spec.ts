/** The in-process replay guard: each nonce until its state's expiry, and never more than its capacity. */
import { describe, expect, it } from '@jest/globals';
import { McpBackendUnavailableError } from '../mcp-backend.interface.js';
import { InMemoryRequestStateNonces } from './in-memory-request-state-nonces.js';

describe('InMemoryRequestStateNonces', () => {
  const clocked = (capacity: number) => {
    const clock = { now: 1_000 };
    return { clock, nonces: new InMemoryRequestStateNonces(capacity, () => clock.now) };
  };

  it('remembers a nonce up to and including its expiry instant, and forgets it after', async () => {
    const { clock, nonces } = clocked(10);
    expect(await nonces.consume('a', 2_000)).toBe(true);
    clock.now = 2_000;
    expect(await nonces.consume('a', 2_000)).toBe(false);
    clock.now = 2_001;
    expect(await nonces.consume('b', 3_000)).toBe(true);
    expect(nonces.size).toBe(1);
  });

  it('when full, refuses a new nonce as a busy backend (503) instead of forgetting a live one', async () => {
    const { clock, nonces } = clocked(2);
    expect(await nonces.consume('a', 5_000)).toBe(true);
    expect(await nonces.consume('b', 5_000)).toBe(true);
    await expect(nonces.consume('c', 5_000)).rejects.toBeInstanceOf(McpBackendUnavailableError);
    // The live ones are still refused: nothing was let go to make room.
    expect(await nonces.consume('a', 5_000)).toBe(false);
    clock.now = 5_001;
    expect(await nonces.consume('c', 9_000)).toBe(true);
  });

  it('when full, also forgets expired nonces held behind a live one consumed earlier', async () => {
    const { clock, nonces } = clocked(2);
    // Consumed in this order, expiring in the other: the cheap sweep stops at the live first one.
    expect(await nonces.consume('late', 9_000)).toBe(true);
    expect(await nonces.consume('early', 2_000)).toBe(true);
    clock.now = 3_000;
    expect(await nonces.consume('next', 9_000)).toBe(true);
    expect(nonces.size).toBe(2);
    expect(await nonces.consume('late', 9_000)).toBe(false);
  });
});
