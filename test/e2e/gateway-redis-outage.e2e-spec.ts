/**
 * The reference gateway's own Redis data (the notes) during an outage: a tool whose store cannot
 * reach Redis answers exactly as the MCP backend does when Redis is down, 503 with Retry-After
 * and the same JSON-RPC error, with nothing of Redis in the body. The gateway runs stateless
 * here, so the tool's store is the first thing to reach Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { rawPost } from '../support/raw-http.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

const createNote = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'notes.create', arguments: { title: 'paused', body: 'while Redis is paused' } },
});

describe('the gateway while its Redis is paused', () => {
  let redis: TestRedis;
  let gateway: RunningGateway;

  beforeAll(async () => {
    redis = await startRedis({ own: true });
    gateway = await startGateway({ REDIS_URL: redis.url, MCP_REDIS_KEY_PREFIX: redis.prefix(), MCP_STATELESS: '1' });
  }, 30_000);

  afterAll(async () => {
    await redis?.command('CLIENT', 'UNPAUSE').catch(() => undefined);
    await gateway?.close();
    await redis?.stop();
  });

  it('notes.create answers 503 with Retry-After and the backend error, no Redis detail, then works again', async () => {
    // Writes wait (reads do not): the notes store's write times out as in an outage.
    await redis.command('CLIENT', 'PAUSE', 30_000, 'WRITE');
    const paused = await rawPost(gateway.endpoint, createNote(1));
    await redis.command('CLIENT', 'UNPAUSE');

    expect(paused.status).toBe(503);
    expect(paused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(paused.json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32000,
        message: 'Service unavailable',
        data: { detail: 'The session backend is unavailable; retry shortly' },
      },
    });
    expect(paused.text).not.toMatch(/redis|timed out|127\.0\.0\.1/i);

    const again = await rawPost(gateway.endpoint, createNote(2));
    expect(again.status).toBe(200);
    expect(again.json.result.structuredContent).toEqual({ id: expect.any(String), uri: expect.any(String) });
  }, 15_000);
});
