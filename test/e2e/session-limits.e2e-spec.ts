import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BasicTools } from '../fixtures/basic.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { McpSessionManager } from '@app/mcp/session/mcp-session.manager.js';
import { initializeRequest, openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { GatedCreateBackend } from '../support/test-backends.js';

describe('maxSessions', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { sessions: { max: 3 } } });
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

describe('maxSessions under concurrent initialize (the cap was check-then-act)', () => {
  const LIMIT = 20;
  // Five times the cap is enough for the race: every one of them passes the count check
  // before any create lands, so a check-then-act cap would admit all of them.
  const CONCURRENT = 100;
  const backend = new GatedCreateBackend();
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { sessions: { max: LIMIT }, backend } });
  });

  afterAll(async () => {
    backend.creates.open();
    await fixture.close();
  });

  it(`${CONCURRENT} initialize that all reach the store before any proceeds create exactly ${LIMIT} sessions; the rest get 503`, async () => {
    const answering = Promise.allSettled(
      Array.from({ length: CONCURRENT }, (_, i) => rawPost(fixture.endpoint, initializeRequest(i))),
    );
    try {
      // Generous: on a busy two-core machine a hundred handshakes can take seconds to arrive.
      await backend.creates.whenArrived(CONCURRENT, 40_000);
    } finally {
      // Every request is answered before the test ends, whether the gate filled or not.
      backend.creates.open();
    }
    const answers = (await answering).map((settled) => {
      if (settled.status === 'rejected') throw settled.reason;
      return settled.value;
    });
    const statuses: Record<number, number> = {};
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
    expect(statuses).toEqual({ 200: LIMIT, 503: CONCURRENT - LIMIT });

    const created = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(new Set(created.map((answer) => answer.headers.get('mcp-session-id'))).size).toBe(LIMIT);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(answer.json.error).toEqual(expect.objectContaining({ code: -32000, message: 'Too many sessions' }));
    }
    expect(await fixture.app.get(McpSessionManager).count()).toBe(LIMIT);
  }, 60_000);
});
