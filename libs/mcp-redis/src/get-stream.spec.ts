/**
 * A held GET stream hears, on a cluster, of a subscription after a notification of its URI that
 * was published after the subscription (the two came through different shards): the stream
 * writes that update once it hears of the subscription, and nothing older than it.
 */
import { describe, expect, it } from '@jest/globals';
import { FakeConnection } from '@nest-mcp/server/testing';
import { GetStream, type StreamItem } from './get-stream.js';

const updated = (uri: string) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });

function started(heard: StreamItem[]): { stream: GetStream; connection: FakeConnection } {
  const connection = new FakeConnection();
  const stream = new GetStream(connection, 'i1 t', {
    readOutbox: async () => [],
    refused: () => undefined,
    subscribed: () => undefined,
    updatedSince: (uri, after, upTo) =>
      heard
        .filter((item) => item.type === 'log' && item.target === uri && item.seq > after && item.seq <= upTo)
        .map((item) => (item.type === 'log' ? item.json : ''))
        .at(-1),
  });
  stream.start('ep', 0, 0, [], []);
  for (const item of heard) stream.push(item);
  return { stream, connection };
}

const log = (seq: number, uri: string): StreamItem => ({
  type: 'log',
  seq,
  kind: 'u',
  target: uri,
  json: updated(uri),
});

describe('GetStream: a subscription heard after a notification it preceded', () => {
  it('writes the latest update of the URI past the subscriber’s head, once, under the current cursors', () => {
    const { stream, connection } = started([log(1, 'db://a'), log(2, 'db://a'), log(3, 'db://b')]);
    expect(connection.sent).toEqual([]);

    stream.push({ type: 'sub', uri: 'db://a', on: true, after: 1 });

    expect(connection.summary).toEqual(['notifications/resources/updated db://a']);
    expect(connection.sent[0].eventId).toBe('g:ep-0:3');
    stream.push(log(4, 'db://a'));
    expect(connection.summary).toEqual([
      'notifications/resources/updated db://a',
      'notifications/resources/updated db://a',
    ]);
  });

  it('writes nothing when the subscriber had heard everything the stream had (one Redis, or no gap)', () => {
    const { stream, connection } = started([log(1, 'db://a')]);
    stream.push({ type: 'sub', uri: 'db://a', on: true, after: 1 });
    stream.push({ type: 'sub', uri: 'db://b', on: true });
    expect(connection.sent).toEqual([]);
  });
});
