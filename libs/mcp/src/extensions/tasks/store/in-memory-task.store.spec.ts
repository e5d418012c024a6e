import { describe, expect, it } from '@jest/globals';
import { McpBackendUnavailableError } from '../../../errors/mcp-backend-unavailable.error.js';
import type { McpTaskRecord } from './mcp-task.store.js';
import { InMemoryTaskStore } from './in-memory-task.store.js';
import { taskLimits } from '../../../testing/task-store-contract.js';

const record = (taskId: string, now: number, ttlMs = 1_000): McpTaskRecord => ({
  taskId,
  owner: 'o',
  instanceId: 'i',
  era: 'modern',
  status: 'working',
  createdAt: now,
  lastUpdatedAt: now,
  ttlMs,
  pollIntervalMs: 1_000,
});

describe('InMemoryTaskStore', () => {
  it('holds at most its capacity of live tasks: past it, creating is a busy backend (503), until some expire', async () => {
    let now = 1_000_000;
    const store = new InMemoryTaskStore(3, () => now);
    for (const id of ['a', 'b', 'c'])
      expect(await store.create(record(id, now), taskLimits({ maxPerCaller: 10 }))).toBe(true);
    await expect(store.create(record('d', now), taskLimits({ maxPerCaller: 10 }))).rejects.toBeInstanceOf(
      McpBackendUnavailableError,
    );
    now += 1_001;
    expect(await store.create(record('d', now), taskLimits({ maxPerCaller: 10 }))).toBe(true);
    expect(store.size).toBe(1);
  });

  it('drops expired tasks as it creates new ones, the oldest first, so memory follows the live tasks', async () => {
    let now = 1_000_000;
    const store = new InMemoryTaskStore(1_000, () => now);
    for (let i = 0; i < 10; i++) await store.create(record(`old-${i}`, now, 10), taskLimits({ maxPerCaller: 100 }));
    now += 11;
    await store.create(record('new', now), taskLimits({ maxPerCaller: 100 }));
    expect(store.size).toBe(1);
    expect(await store.get('old-0')).toBeUndefined();
  });
});
