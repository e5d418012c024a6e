/**
 * The message log every test client waits on (a test of test support; it runs with the e2e
 * project because that is where test/ specs are collected).
 */
import { describe, expect, it } from '@jest/globals';
import { MessageLog } from './message-log.js';

const settledState = async <T>(promise: Promise<T>): Promise<'pending' | 'resolved' | 'rejected'> => {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  // Lets already-settled promise reactions run; nothing here waits for time to pass.
  await Promise.resolve();
  await Promise.resolve();
  return state;
};

describe('MessageLog', () => {
  it('resolves a wait with a message already received', async () => {
    const log = new MessageLog<number>('number');
    log.push(1);
    log.push(2);
    await expect(log.waitFor((n) => n === 2)).resolves.toBe(2);
  });

  it('resolves a wait on the push that matches, not on earlier ones', async () => {
    const log = new MessageLog<number>('number');
    const even = log.waitFor((n) => n % 2 === 0);
    log.push(1);
    expect(await settledState(even)).toBe('pending');
    log.push(4);
    await expect(even).resolves.toBe(4);
  });

  it('ignores matches before fromIndex', async () => {
    const log = new MessageLog<string>('word');
    log.push('a');
    const later = log.waitFor((word) => word === 'a', 5_000, log.length);
    expect(await settledState(later)).toBe('pending');
    log.push('a');
    await expect(later).resolves.toBe('a');
    expect(log.all()).toEqual(['a', 'a']);
  });

  it('rejects pending waits when the log ends, and later waits at once', async () => {
    const log = new MessageLog<number>('number', () => 'nothing useful');
    const pending = log.waitFor((n) => n > 10);
    log.end('the stream ended');
    await expect(pending).rejects.toThrow('the stream ended without a matching number (nothing useful)');
    await expect(log.waitFor(() => true)).rejects.toThrow('the stream ended');
    expect(log.ended).toBe(true);
  });

  it('still finds a message received before the end', async () => {
    const log = new MessageLog<number>('number');
    log.push(7);
    log.end('closed');
    await expect(log.waitFor((n) => n === 7)).resolves.toBe(7);
  });

  it('rejects on its own timeout, naming what it waited for and what came', async () => {
    const log = new MessageLog<number>('number');
    log.push(3);
    await expect(log.waitFor((n) => n === 4, 1)).rejects.toThrow('no matching number within 1 ms (got [3])');
  });
});
