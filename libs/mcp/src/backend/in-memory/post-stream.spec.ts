import { describe, expect, it, jest } from '@jest/globals';
import type { McpConnection } from '../mcp-session.store.js';
import { parsePostEventId, PostStream } from './post-stream.js';

const connection = () => {
  const sent: [unknown, string | undefined][] = [];
  const conn = {
    send: jest.fn((json: string, id?: string) => (sent.push([JSON.parse(json), id]), true)),
    close: jest.fn(),
  };
  return { conn: conn as McpConnection & typeof conn, sent };
};

const json = (value: unknown) => JSON.stringify(value);

describe('PostStream', () => {
  it('numbers events p:<stream>:<n>, writes them live, and replays after a position', () => {
    const live = connection();
    const stream = new PostStream(10, live.conn);
    stream.send(json({ n: 1 }));
    stream.send(json({ n: 2 }));
    expect(live.sent.map(([, id]) => id)).toEqual([`p:${stream.id}:1`, `p:${stream.id}:2`]);

    const resumed = connection();
    expect(stream.resume(resumed.conn, 1)).toBe('resumed');
    expect(resumed.sent).toEqual([[{ n: 2 }, `p:${stream.id}:2`]]);
    stream.send(json({ n: 3 }));
    expect(resumed.sent).toHaveLength(2);
    stream.finish();
    expect(resumed.conn.close).toHaveBeenCalled();
  });

  it('closes the answer it supersedes when the client resumes on a new connection', () => {
    const original = connection();
    const stream = new PostStream(10, original.conn);
    stream.send(json({ n: 1 }));

    const resumed = connection();
    stream.resume(resumed.conn, 1);
    stream.send(json({ n: 2 }));

    expect(original.conn.close).toHaveBeenCalledTimes(1);
    expect(original.sent).toHaveLength(1);
    expect(resumed.sent.map(([message]) => message)).toEqual([{ n: 2 }]);
  });

  it('closes a resumed connection at once when the stream already finished', () => {
    const stream = new PostStream(10, undefined);
    stream.send(json({ answer: true }));
    stream.finish();
    const late = connection();
    expect(stream.resume(late.conn, 0)).toBe('resumed');
    expect(late.sent).toHaveLength(1);
    expect(late.conn.close).toHaveBeenCalled();
  });

  it('says so when events after the position were dropped from its history, replaying nothing', () => {
    const stream = new PostStream(2, undefined);
    for (let n = 1; n <= 5; n++) stream.send(json({ n }));
    const resumed = connection();

    expect(stream.resume(resumed.conn, 1)).toBe('gap');
    expect(resumed.sent).toEqual([]);
    // From the oldest event still kept, nothing is missing.
    expect(stream.resume(resumed.conn, 3)).toBe('resumed');
    expect(resumed.sent.map(([message]) => message)).toEqual([{ n: 4 }, { n: 5 }]);
  });

  it('does not know a position it never reached', () => {
    const stream = new PostStream(5, undefined);
    stream.send(json({ n: 1 }));
    expect(stream.resume(connection().conn, 7)).toBe('unknown');
  });
});

describe('parsePostEventId', () => {
  it('reads p:<stream>:<n> and nothing else', () => {
    expect(parsePostEventId('p:abc_-1:3')).toEqual({ streamId: 'abc_-1', seq: 3 });
    expect(parsePostEventId('g:abc:3')).toBeUndefined();
    expect(parsePostEventId('p:abc:x')).toBeUndefined();
    expect(parsePostEventId('p:abc:99999999999999999999')).toBeUndefined();
  });
});
