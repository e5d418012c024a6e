/**
 * `resources/subscribe` to URIs matched by templates: the template's `exists` hook decides, run
 * through the template method's Nest pipeline (guards, request scope), over raw Streamable HTTP.
 */
import { openSession, rawPost } from '../support/raw-http.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { FixtureState } from '../fixtures/fixture-state.js';
import { GuardedTemplates } from '../fixtures/existing.resources.js';
import { RequestScopedTemplates } from '../fixtures/request-scoped.tools.js';

let nextId = 1;

/** `resources/subscribe` over a raw POST; resolves to the JSON-RPC response. */
async function subscribe(endpoint: string, headers: Record<string, string>, uri: string) {
  const body = { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri } };
  const response = await rawPost(endpoint, body, headers);
  expect(response.status).toBe(200);
  return response.json;
}

describe('subscribing to template URIs', () => {
  describe('guarded templates', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let session: { sessionId: string; headers: Record<string, string> };

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [FixtureState, GuardedTemplates] });
      state = fixture.app.get(FixtureState);
      session = await openSession(fixture.endpoint);
    });
    afterAll(() => fixture?.close());

    it("answers -32003 when the template's guard denies, without running the hook or a read", async () => {
      const answer = await subscribe(fixture.endpoint, session.headers, 'fixture://denied-notes/1');

      expect(answer.error).toMatchObject({ code: -32003, message: 'Forbidden' });
      expect(state.count('denied-notes:exists')).toBe(0);
      expect(state.count('denied-notes:read')).toBe(0);
    });

    it('shows the guard the subscribe and the arguments a read would get', async () => {
      const answer = await subscribe(fixture.endpoint, session.headers, 'fixture://inspected-notes/2');

      // The library's default wire profile: the MCP schema's empty result.
      expect(answer.result).toEqual({});
      expect(state.observedBy('InspectingGuard')).toContainEqual({
        by: 'InspectingGuard',
        type: 'mcp',
        isMcp: true,
        handler: 'inspectedNote',
        args: { uri: 'fixture://inspected-notes/2', variables: { id: '2' } },
        sessionId: session.sessionId,
        method: 'resources/subscribe',
      });
      expect(state.count('inspected-notes:read')).toBe(0);
    });

    it('answers "not found" only when the hook says so, and -32603 when it fails', async () => {
      const missing = await subscribe(fixture.endpoint, session.headers, 'fixture://inspected-notes/404');
      const outage = await subscribe(fixture.endpoint, session.headers, 'fixture://inspected-notes/outage');

      expect(missing.error).toMatchObject({
        code: -32002,
        message: 'Resource not found',
        data: { uri: 'fixture://inspected-notes/404' },
      });
      expect(outage.error).toMatchObject({ code: -32603 });
      expect(JSON.stringify(outage.error)).not.toContain('notes-db');
    });
  });

  describe('a request-scoped template', () => {
    let fixture: FixtureApp;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [RequestScopedTemplates] });
    });
    afterAll(() => fixture?.close());

    it('runs its exists hook on a fresh instance per request, with REQUEST injected', async () => {
      const { sessionId, headers } = await openSession(fixture.endpoint);
      RequestScopedTemplates.existsCalls.length = 0;

      const first = await subscribe(fixture.endpoint, headers, 'fixture://scoped-notes/a');
      const second = await subscribe(fixture.endpoint, headers, 'fixture://scoped-notes/b');
      const missing = await subscribe(fixture.endpoint, headers, 'fixture://scoped-notes/missing');

      expect(first.result).toEqual({});
      expect(second.result).toEqual({});
      expect(missing.error.code).toBe(-32002);
      const calls = RequestScopedTemplates.existsCalls;
      expect(calls.map((call) => call.sessionHeader)).toEqual([sessionId, sessionId, sessionId]);
      expect(new Set(calls.map((call) => call.instanceId)).size).toBe(3);
      expect(calls.every((call) => typeof call.instanceId === 'number')).toBe(true);
    });
  });
});
