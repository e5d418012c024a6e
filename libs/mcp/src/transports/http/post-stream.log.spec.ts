import { describe, expect, it, jest } from '@jest/globals';
import type { McpConnection } from '../../session/mcp-session.interface.js';
import type { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { PostStream, PostStreamLog } from './post-stream.log.js';

const connection = () => {
  const sent: [object, string | undefined][] = [];
  const conn = {
    send: jest.fn((m: object, id?: string) => (sent.push([m, id]), true)),
    sendJson: jest.fn((json: string, id?: string) => (sent.push([JSON.parse(json) as object, id]), true)),
    close: jest.fn(),
  };
  return { conn: conn as unknown as McpConnection & typeof conn, sent };
};

function log(replayBufferSize = 256) {
  const listeners: ((id: string) => void)[] = [];
  const sessions = { onSessionEnd: (fn: (id: string) => void) => listeners.push(fn) } as unknown as McpSessionManager;
  const postStreams = new PostStreamLog({ replayBufferSize } as ResolvedMcpOptions, sessions);
  postStreams.onModuleInit();
  return { postStreams, endSession: (id: string) => listeners.forEach((fn) => fn(id)) };
}

describe('PostStream', () => {
  it('numbers events p:<stream>:<n>, writes them live, and replays after a position', () => {
    const stream = new PostStream(10);
    const live = connection();
    stream.attach(live.conn);
    stream.send({ n: 1 });
    stream.send({ n: 2 });
    expect(live.sent.map(([, id]) => id)).toEqual([`p:${stream.id}:1`, `p:${stream.id}:2`]);

    const resumed = connection();
    stream.resume(resumed.conn, 1);
    expect(resumed.sent).toEqual([[{ n: 2 }, `p:${stream.id}:2`]]);
    stream.send({ n: 3 });
    expect(resumed.sent).toHaveLength(2);
    stream.finish();
    expect(resumed.conn.close).toHaveBeenCalled();
  });

  it('closes a resumed connection at once when the stream already finished', () => {
    const stream = new PostStream(10);
    stream.send({ answer: true });
    stream.finish();
    const late = connection();
    stream.resume(late.conn, 0);
    expect(late.sent).toHaveLength(1);
    expect(late.conn.close).toHaveBeenCalled();
  });

  it('keeps at most its capacity of events', () => {
    const stream = new PostStream(2);
    for (let n = 1; n <= 5; n++) stream.send({ n });
    const resumed = connection();
    stream.resume(resumed.conn, 0);
    expect(resumed.sent.map(([m]) => m)).toEqual([{ n: 4 }, { n: 5 }]);
  });
});

describe('PostStreamLog', () => {
  it("finds a session's own streams only", () => {
    const { postStreams } = log();
    const stream = postStreams.open('session-a');
    expect(postStreams.find('session-a', `p:${stream.id}:3`)).toEqual({ stream, afterSeq: 3 });
    expect(postStreams.find('session-b', `p:${stream.id}:3`)).toBeUndefined();
    expect(postStreams.find('session-a', `g:x:3`)).toBeUndefined();
    expect(postStreams.find('session-a', `p:${stream.id}:x`)).toBeUndefined();
  });

  it('forgets the streams of an ended session, and keeps 16 streams per session', () => {
    const { postStreams, endSession } = log();
    const first = postStreams.open('s');
    for (let i = 0; i < 16; i++) postStreams.open('s');
    expect(postStreams.find('s', `p:${first.id}:1`)).toBeUndefined();
    const kept = postStreams.open('s');
    endSession('s');
    expect(postStreams.find('s', `p:${kept.id}:1`)).toBeUndefined();
  });
});
