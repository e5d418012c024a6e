/**
 * Client input nested 200,000 levels deep, on the legacy era's paths that store or forward it:
 * `initialize`'s capabilities and clientInfo (kept with the session, serialized by a shared
 * backend) and a client's answer to a server→client request of another instance (serialized to
 * be forwarded). Each is a clear outcome (`-32602`, or the answer dropped) and logs no error, in
 * memory and on Redis. (The modern era's MRTR paths are in modern-mrtr.e2e-spec.ts.)
 */
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { RedisMcpBackend } from '@nest-mcp/redis';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

const DEPTH = 200_000;
/** DEPTH nested arrays, as JSON text (JSON.stringify itself would overflow on the value). */
const DEEP = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

describe.each(['in memory', 'on Redis'])('client input nested 200,000 levels deep (%s)', (where) => {
  let redis: TestRedis | undefined;
  let app: FixtureApp;
  let errors: ReturnType<typeof jest.spyOn>;

  beforeAll(async () => {
    if (where === 'on Redis') redis = await startRedis();
    const backend = redis && new RedisMcpBackend({ url: redis.url, keyPrefix: redis.prefix() });
    app = await startFixtureApp({ mcp: backend ? { backend } : {} });
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error');
  });

  afterEach(() => {
    errors.mockRestore();
  });

  it.each([
    ['capabilities', `"capabilities":{"experimental":${DEEP}},"clientInfo":{"name":"a","version":"1"}`],
    ['clientInfo', `"capabilities":{},"clientInfo":{"name":"a","version":"1","x":${DEEP}}`],
  ])('initialize with deep %s: -32602 naming it, no session, no error logged', async (what, params) => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",${params}}}`;
    const response = await rawPost(app.endpoint, body);
    expect(response.json).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(response.json.error.data.detail).toBe(
      `${what} is nested deeper than 64 levels (the maxArgumentDepth limit)`,
    );
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(errors).not.toHaveBeenCalled();
  });

  it("a deep answer to another instance's request is dropped: 202, no error logged, the session still serves", async () => {
    const { headers } = await openSession(app.endpoint);
    for (const answer of [`"result":{"x":${DEEP}}`, `"error":{"code":1,"message":"no","data":${DEEP}}`]) {
      const response = await rawPost(app.endpoint, `{"jsonrpc":"2.0","id":"srv-elsewhere-1",${answer}}`, headers);
      expect(response.status).toBe(202);
    }
    const ping = await rawPost(app.endpoint, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(errors).not.toHaveBeenCalled();
  });
});
