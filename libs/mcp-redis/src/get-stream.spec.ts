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

/** The log shard of a URI in these tests: `db://b…` on shard 1 when there are two, the rest on 0. */
const shardOf = (uri: string, shards: number) => (shards > 1 && uri.startsWith('db://b') ? 1 : 0);

function started(heard: StreamItem[], shards = 1): { stream: GetStream; connection: FakeConnection } {
  const connection = new FakeConnection();
  const stream = new GetStream(connection, 'i1 t', {
    readOutbox: async () => [],
    refused: () => undefined,
    subscribed: () => undefined,
    updatedSince: (uri, after, upTo) =>
      heard
        .filter(
          (item) =>
            item.type === 'log' &&
            item.target === uri &&
            item.shard === shardOf(uri, shards) &&
            item.seq > after &&
            item.seq <= upTo,
        )
        .map((item) => (item.type === 'log' ? item.json : ''))
        .at(-1),
    logShardOf: (uri) => shardOf(uri, shards),
  });
  stream.start('ep', 0, new Array<number>(shards).fill(0), [], []);
  for (const item of heard) stream.push(item);
  return { stream, connection };
}

const log = (seq: number, uri: string, shard = 0): StreamItem => ({
  type: 'log',
  shard,
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

  it('with several log shards, compares the subscriber’s head with the URI’s shard only', () => {
    // Shard 0 (db://a) is far ahead of shard 1 (db://b): its sequences say nothing of db://b's.
    const { stream, connection } = started(
      [log(1, 'db://a'), log(2, 'db://a'), log(3, 'db://a'), log(1, 'db://b', 1), log(2, 'db://b', 1)],
      2,
    );
    stream.push({ type: 'sub', uri: 'db://b', on: true, after: 1 });
    expect(connection.summary).toEqual(['notifications/resources/updated db://b']);
    // Both shards' positions: shard 0 where it was written (nothing of it was the session's), shard 1 at its last heard.
    expect(connection.sent[0].eventId).toBe('g:ep-0_0_2:2');

    stream.push({ type: 'sub', uri: 'db://a', on: true, after: 3 });
    expect(connection.sent).toHaveLength(1);
    stream.push(log(3, 'db://b', 1));
    stream.push(log(4, 'db://a'));
    expect(connection.sent.map((event) => event.eventId)).toEqual(['g:ep-0_0_2:2', 'g:ep-0_0_3:3', 'g:ep-0_4_3:7']);
  });
});
