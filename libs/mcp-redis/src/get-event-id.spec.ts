/**
 * GET event ids: one log position per shard, written and read back the same; anything a client
 * sends that is not one of ours (malformed, too long, of another number of shards, a total that
 * does not add up) parses to nothing, so the resume resyncs, and the parse is bounded.
 */
import { describe, expect, it } from '@jest/globals';
import {
  formatLogPosition,
  getEventId,
  MAX_GET_EVENT_ID_LENGTH,
  parseGetEventId,
  parseLogPosition,
} from './get-event-id.js';
import { MAX_LOG_SHARDS } from './redis-keys.js';

describe('GET event ids', () => {
  it('keeps the one-log form on a single shard', () => {
    expect(getEventId('Ab_3-x', 12, [40])).toBe('g:Ab_3-x-12:40');
    expect(parseGetEventId('g:Ab_3-x-12:40', 1)).toEqual({ epoch: 'Ab_3-x', out: 12, log: [40] });
  });

  it('carries one position per shard and their total, read back the same', () => {
    const id = getEventId('e-9_1', 3, [1, 0, 25, 7]);
    expect(id).toBe('g:e-9_1-3_1_0_25_7:36');
    expect(parseGetEventId(id, 4)).toEqual({ epoch: 'e-9_1', out: 3, log: [1, 0, 25, 7] });
  });

  it('reads back the longest id a deployment issues (every shard, every sequence at its bound)', () => {
    const log = new Array<number>(MAX_LOG_SHARDS).fill(999_999_999_999_999);
    const id = getEventId('e'.repeat(32), 999_999_999_999_999, log);
    // The total of 65 such sequences is no exact integer any more: such an id is refused, never misread.
    expect(parseGetEventId(id, MAX_LOG_SHARDS)).toBeUndefined();
    const small = getEventId(
      'e'.repeat(32),
      999_999_999_999_999,
      log.map(() => 99_999_999_999),
    );
    expect(small.length).toBeLessThanOrEqual(MAX_GET_EVENT_ID_LENGTH);
    expect(parseGetEventId(small, MAX_LOG_SHARDS)?.log).toHaveLength(MAX_LOG_SHARDS);
  });

  it.each([
    ['another number of shards', 'g:e-3_1_2:6', 4],
    ['one position given to a sharded log', 'g:e-3:4', 4],
    ['positions given to a single log', 'g:e-3_1_2:6', 1],
    ['a total that does not add up', 'g:e-3_1_2_3_4:14', 4],
    ['a sequence of 16 digits', `g:e-3_${'1'.repeat(16)}_0_0_0:${3 + 1111111111111111}`, 4],
    ['more positions than any deployment has', `g:e-0${'_0'.repeat(65)}:0`, 65],
    ['an epoch longer than ours', `g:${'e'.repeat(33)}-1:1`, 1],
    ['a POST-stream id', 'p:abc:3', 1],
    ['dots for separators', 'g:e-3:1.2.3.4', 4],
    ['a negative position', 'g:e-3_-1_2_3_4:11', 4],
    ['trailing garbage', 'g:e-3:4 ', 1],
    ['an empty id', '', 1],
  ])('refuses %s', (_, id, shards) => {
    expect(parseGetEventId(id, shards)).toBeUndefined();
  });

  it('refuses an id past the longest one it issues before any pattern runs', () => {
    const huge = `g:e-0${'_0'.repeat(200_000)}:0`;
    expect(huge.length).toBeGreaterThan(MAX_GET_EVENT_ID_LENGTH);
    expect(parseGetEventId(huge, 4)).toBeUndefined();
    expect(parseGetEventId(`g:${'e-1_'.repeat(100_000)}:1`, 4)).toBeUndefined();
  });

  it('records an outbox entry’s heads, and reads back what an older entry lacks as 0', () => {
    expect(formatLogPosition([7])).toBe('7');
    expect(formatLogPosition([7, 0, 3])).toBe('7.0.3');
    expect(parseLogPosition('7.0.3', 3)).toEqual([7, 0, 3]);
    expect(parseLogPosition('7', 3)).toEqual([7, 0, 0]);
    expect(parseLogPosition('x.-1.4', 3)).toEqual([0, 0, 4]);
  });
});
