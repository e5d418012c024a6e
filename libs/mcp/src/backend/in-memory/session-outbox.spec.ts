import { describe, expect, it } from '@jest/globals';
import { SessionOutbox } from './session-outbox.js';

describe('SessionOutbox', () => {
  it('numbers events g:<epoch>:<n> and replays exactly those after a given id', () => {
    const outbox = new SessionOutbox(10);
    const ids = ['a', 'b', 'c'].map((json) => outbox.append(json));
    expect(ids[0]).toMatch(/^g:[A-Za-z0-9_-]+:1$/);
    expect(outbox.after(ids[0])).toEqual([
      { eventId: ids[1], json: 'b' },
      { eventId: ids[2], json: 'c' },
    ]);
    expect(outbox.after(ids[2])).toEqual([]);
  });

  it('keeps only the last `capacity` events; an id older than the ring is unknown', () => {
    const outbox = new SessionOutbox(3);
    const ids = Array.from({ length: 7 }, (_, i) => outbox.append(String(i)));
    expect(outbox.size).toBe(3);
    expect(outbox.after(ids[3])?.map((entry) => entry.json)).toEqual(['4', '5', '6']);
    expect(outbox.after(ids[2])).toBeUndefined();
  });

  it('replays across the ring wrapping around, more than once', () => {
    const outbox = new SessionOutbox(4);
    const ids = Array.from({ length: 11 }, (_, i) => outbox.append(String(i)));
    expect(outbox.size).toBe(4);
    expect(outbox.after(ids[6])?.map((entry) => entry.json)).toEqual(['7', '8', '9', '10']);
    expect(outbox.after(ids[8])?.map((entry) => entry.json)).toEqual(['9', '10']);
    expect(outbox.after(ids[10])).toEqual([]);
  });

  it("does not know another session's ids, malformed ids or ids from the future", () => {
    const mine = new SessionOutbox(5);
    const theirs = new SessionOutbox(5);
    const foreign = theirs.append('x');
    const own = mine.append('y');
    expect(mine.after(foreign)).toBeUndefined();
    expect(mine.after('g:nope')).toBeUndefined();
    expect(mine.after(own.replace(/\d+$/, '99'))).toBeUndefined();
  });
});
