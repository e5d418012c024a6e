/** The command connection writes the commands of one event-loop turn in one go, and holds none back. */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Socket } from 'node:net';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { TurnBatchedRedis } from './turn-batched-redis.js';

describe('TurnBatchedRedis', () => {
  let redis: TestRedis;
  let client: TurnBatchedRedis;
  let prefix: string;
  /** Every client a test made, closed after it however it ended. */
  const clients: TurnBatchedRedis[] = [];
  const track = (made: TurnBatchedRedis): TurnBatchedRedis => {
    clients.push(made);
    return (client = made);
  };

  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);

  afterAll(async () => {
    await redis?.stop();
  });

  const connect = async (): Promise<TurnBatchedRedis> => {
    track(new TurnBatchedRedis(redis.url, { maxRetriesPerRequest: 1 }));
    prefix = redis.prefix();
    await client.ping();
    return client;
  };

  afterEach(() => {
    jest.restoreAllMocks();
    // disconnect, not quit: a quit waits for a server that may be gone.
    for (const made of clients.splice(0)) made.disconnect();
  });

  /** The socket's writes to the kernel: one `_writev` per flushed batch, one `_write` per lone chunk. */
  const spyOnWrites = (socket: Socket) => {
    const writev = jest.spyOn(socket as unknown as { _writev: (...args: unknown[]) => void }, '_writev');
    const write = jest.spyOn(socket as unknown as { _write: (...args: unknown[]) => void }, '_write');
    return { writev, write };
  };

  it('sends every command of one turn in one socket write', async () => {
    await connect();
    const { writev, write } = spyOnWrites(client.stream);
    const replies = await Promise.all([1, 2, 3, 4, 5].map((n) => client.incrby(`${prefix}n`, n)));
    expect(replies).toEqual([1, 3, 6, 10, 15]);
    expect(write).not.toHaveBeenCalled();
    expect(writev).toHaveBeenCalledTimes(1);
    expect((writev.mock.calls[0][0] as unknown[]).length).toBe(5);
  });

  it('writes the commands of each turn in that turn, whichever phase sent them', async () => {
    await connect();
    const { writev, write } = spyOnWrites(client.stream);
    const fromTimer = await new Promise((resolve) => setTimeout(() => resolve(client.set(`${prefix}t`, 'timer')), 1));
    const fromImmediate = await new Promise((resolve) => setImmediate(() => resolve(client.set(`${prefix}i`, 'now'))));
    const fromTick = await new Promise((resolve) => process.nextTick(() => resolve(client.get(`${prefix}t`))));
    expect([fromTimer, fromImmediate, fromTick]).toEqual(['OK', 'OK', 'timer']);
    expect(write.mock.calls.length + writev.mock.calls.length).toBe(3);
  });

  it('leaves pipelines and transactions to their own single write', async () => {
    await connect();
    const piped = await client.pipeline().set(`${prefix}p`, '1').incr(`${prefix}p`).exec();
    expect(piped).toEqual([
      [null, 'OK'],
      [null, 2],
    ]);
    expect(await client.multi().incr(`${prefix}p`).get(`${prefix}p`).exec()).toEqual([
      [null, 3],
      [null, '3'],
    ]);
  });

  it('queues what is sent before the connection is ready, and sends it once it is', async () => {
    track(new TurnBatchedRedis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 }));
    prefix = redis.prefix();
    const early = Promise.all([client.set(`${prefix}e`, 'early'), client.get(`${prefix}e`)]);
    expect(await early).toEqual(['OK', 'early']);
  });

  it('answers the commands of a turn whose connection dropped before the flush, once it is back', async () => {
    await connect();
    const replies = Promise.all([client.set(`${prefix}d`, 'kept'), client.get(`${prefix}d`)]);
    client.stream.destroy();
    expect(await replies).toEqual(['OK', 'kept']);
    expect(await client.get(`${prefix}d`)).toBe('kept');
  });
});
