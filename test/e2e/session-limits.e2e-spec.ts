import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BasicTools } from '../fixtures/basic.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { initializeRequest, openSession, rawPost, rawRequest } from '../support/raw-http.js';

describe('maxSessions', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { maxSessions: 3 } });
  });

  afterAll(() => fixture.close());

  it('refuses initialize past the cap with 503, Retry-After and a JSON-RPC error, and admits again once a session ends', async () => {
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push(await openSession(fixture.endpoint));

    const refused = await rawPost(fixture.endpoint, initializeRequest(7));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: expect.objectContaining({
        code: -32000,
        message: 'Too many sessions',
        data: expect.objectContaining({ limit: 3 }),
      }),
    });

    // The existing sessions keep working.
    const ping = await rawPost(fixture.endpoint, { jsonrpc: '2.0', id: 8, method: 'ping' }, sessions[0].headers);
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 8, result: {} });

    expect((await rawRequest(fixture.endpoint, 'DELETE', sessions[0].headers)).status).toBe(204);
    const admitted = await rawPost(fixture.endpoint, initializeRequest(9));
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get('mcp-session-id')).toEqual(expect.any(String));
  });
});
