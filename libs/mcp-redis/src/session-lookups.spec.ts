/**
 * The lookups of one turn leave as one batch, one entry per session, and each caller gets its
 * session's reply; while a call is out, the lookups asked meanwhile wait and leave together.
 */
import { describe, expect, it } from '@jest/globals';
import { MAX_SESSIONS_PER_CALL } from './batches.js';
import { SessionLookups, type AccessArgs, type AccessReply } from './session-lookups.js';

/** A Redis stand-in: records each batch and answers from `replies` by session id. */
function fakeRedis(replies: Record<string, AccessReply>, failWith?: Error) {
  const batches: AccessArgs[] = [];
  const settled: string[] = [];
  const lookups = new SessionLookups(
    (args) => {
      batches.push(args);
      if (failWith) return Promise.reject(failWith);
      const answers: AccessReply[] = [];
      for (let i = 0; i < args.length; i += 5) answers.push(replies[args[i] as string] ?? 0);
      return Promise.resolve(answers);
    },
    (id) => void settled.push(id),
  );
  return { lookups, batches, settled };
}

describe('SessionLookups', () => {
  it('sends the lookups of one turn as one batch, one entry per session', async () => {
    const { lookups, batches } = fakeRedis({ a: ['ep', 'x'], b: ['ep', 'y'] });
    const replies = await Promise.all([
      lookups.lookup('a', '', 100, 5_000, true),
      lookups.lookup('b', '', 101, 5_000, true),
      lookups.lookup('a', '', 102, 5_000, false),
    ]);
    expect(replies).toEqual([
      ['ep', 'x'],
      ['ep', 'y'],
      ['ep', 'x'],
    ]);
    // One entry for `a`: the latest clock, and its record asked for because one caller lacked it.
    expect(batches).toEqual([['a', 102, 5_000, 0, '', 'b', 101, 5_000, 1, '']]);
  });

  it('looks a session up once per principal in a turn: the script checks each before it touches the session', async () => {
    const { lookups, batches } = fakeRedis({ a: ['ep', 'x'] });
    await Promise.all([
      lookups.lookup('a', 'owner', 1, 10, true),
      lookups.lookup('a', 'other', 2, 10, true),
      lookups.lookup('a', 'owner', 3, 10, true),
    ]);
    expect(batches).toEqual([['a', 3, 10, 1, 'owner', 'a', 2, 10, 1, 'other']]);
  });

  it("keeps an anonymous lookup of a session apart from a principal's lookup of it", async () => {
    const { lookups, batches } = fakeRedis({ a: ['ep', 'x'] });
    await Promise.all([
      lookups.lookup('a', '', 1, 10, true),
      lookups.lookup('a', 'owner', 2, 10, true),
      lookups.lookup('a', '', 3, 10, true),
    ]);
    expect(batches).toEqual([['a', 3, 10, 1, '', 'a', 2, 10, 1, 'owner']]);
  });

  it('starts a new batch in the next turn', async () => {
    const { lookups, batches } = fakeRedis({ a: ['ep', 'x'] });
    await lookups.lookup('a', '', 1, -1, true);
    await lookups.lookup('a', '', 2, -1, true);
    expect(batches).toEqual([
      ['a', 1, -1, 1, ''],
      ['a', 2, -1, 1, ''],
    ]);
  });

  it('splits a turn with more sessions than one call takes into several calls, each answered', async () => {
    const ids = Array.from({ length: 2 * MAX_SESSIONS_PER_CALL + 1 }, (_, i) => `s${i}`);
    const { lookups, batches } = fakeRedis(Object.fromEntries(ids.map((id) => [id, ['ep', id]])));
    const replies = await Promise.all(ids.map((id) => lookups.lookup(id, '', 1, -1, true)));
    expect(replies).toEqual(ids.map((id) => ['ep', id]));
    expect(batches.map((args) => args.length / 5)).toEqual([MAX_SESSIONS_PER_CALL, MAX_SESSIONS_PER_CALL, 1]);
  });

  it("settles each session's reply once, before any of its callers sees it", async () => {
    const { lookups, settled } = fakeRedis({ a: -1 });
    const seen: string[][] = [];
    await Promise.all(
      [
        lookups.lookup('a', '', 1, 10, true),
        lookups.lookup('a', '', 1, 10, true),
        lookups.lookup('gone', '', 1, 10, true),
      ].map((reply) => reply.then(() => void seen.push([...settled]))),
    );
    expect(settled).toEqual(['a', 'gone']);
    expect(seen).toEqual([
      ['a', 'gone'],
      ['a', 'gone'],
      ['a', 'gone'],
    ]);
  });

  it('fails every caller of a batch Redis could not run, and nobody else', async () => {
    const down = new Error('Redis is unavailable');
    const { lookups } = fakeRedis({}, down);
    const outcomes = await Promise.allSettled([
      lookups.lookup('a', '', 1, 10, true),
      lookups.lookup('b', '', 1, 10, true),
    ]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ]);
  });

  it('fails the callers of a session whose settling threw, and answers the others', async () => {
    const broken = new Error('listener bug');
    const lookups = new SessionLookups(
      () => Promise.resolve<AccessReply[]>([0, ['ep', 'x']]),
      (id) => {
        if (id === 'a') throw broken;
      },
    );
    const outcomes = await Promise.allSettled([
      lookups.lookup('a', '', 1, 10, true),
      lookups.lookup('b', '', 1, 10, true),
      lookups.lookup('a', '', 2, 10, true),
    ]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: broken },
      { status: 'fulfilled', value: ['ep', 'x'] },
      { status: 'rejected', reason: broken },
    ]);
  });
  it('holds the lookups asked while a call is out until its reply, then sends them as one call, each answered with its own reply', async () => {
    // Redis answers each call only when the test says so: a barrier, not a timer.
    const calls: { args: AccessArgs; answer: (replies: AccessReply[]) => void }[] = [];
    const lookups = new SessionLookups(
      (args) => new Promise<AccessReply[]>((answer) => calls.push({ args, answer })),
      () => undefined,
    );
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const first = lookups.lookup('a', '', 1, 10, true);
    await turn();
    expect(calls.map((call) => call.args)).toEqual([['a', 1, 10, 1, '']]);

    // Three later turns, the first call still out: nothing more leaves.
    const b = lookups.lookup('b', '', 2, 10, true);
    await turn();
    const again = lookups.lookup('a', '', 3, 10, false);
    await turn();
    const foreign = lookups.lookup('a', 'other', 4, 10, true);
    await turn();
    expect(calls).toHaveLength(1);

    calls[0].answer([['rec', 'first']]);
    await expect(first).resolves.toEqual(['rec', 'first']);
    await turn();
    // Everything asked meanwhile, in one call: one entry per session and principal.
    expect(calls.map((call) => call.args)).toEqual([
      ['a', 1, 10, 1, ''],
      ['b', 2, 10, 1, '', 'a', 3, 10, 0, '', 'a', 4, 10, 1, 'other'],
    ]);
    calls[1].answer([['holder', 'b'], ['rec', 'second'], -2]);
    await expect(Promise.all([b, again, foreign])).resolves.toEqual([['holder', 'b'], ['rec', 'second'], -2]);

    // Nothing out any more: the next lookup leaves at the end of its own turn.
    const later = lookups.lookup('c', '', 5, 10, true);
    await turn();
    expect(calls).toHaveLength(3);
    calls[2].answer([0]);
    await expect(later).resolves.toBe(0);
  });

  it('sends the lookups held behind a call that failed once it has failed', async () => {
    const down = new Error('Redis is unavailable');
    const calls: { fail: (error: Error) => void; answer: (replies: AccessReply[]) => void }[] = [];
    const lookups = new SessionLookups(
      () => new Promise<AccessReply[]>((answer, fail) => calls.push({ answer, fail })),
      () => undefined,
    );
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const first = lookups.lookup('a', '', 1, 10, true);
    await turn();
    const held = lookups.lookup('b', '', 2, 10, true);
    await turn();
    expect(calls).toHaveLength(1);
    calls[0].fail(down);
    await expect(first).rejects.toBe(down);
    await turn();
    expect(calls).toHaveLength(2);
    calls[1].answer([['holder', 'x']]);
    await expect(held).resolves.toEqual(['holder', 'x']);
  });
});
