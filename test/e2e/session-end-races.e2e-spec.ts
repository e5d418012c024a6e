/**
 * "session end against work in flight": a write for a session that ended while it was
 * in flight is refused, so nothing outlives the session. Gates hold the work at the exact point
 * of the race (after the session was found alive), the test ends the session, then opens them.
 */
import { ResourceNotificationService } from '@app/mcp';
import type { McpLiveStreams, McpSubscriptionStore } from '@nest-mcp/server/backend';
import { MCP_LIVE_STREAMS, MCP_SUBSCRIPTION_STORE } from '@app/mcp/backend/mcp-backend.tokens.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { GatedTemplates } from '../fixtures/gated.templates.js';
import { Gates } from '../fixtures/gates.js';
import { within } from '../support/http-wire.js';
import { openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';
import { GatedLookupBackend } from '../support/test-backends.js';

/** Each round is one deterministic interleaving; repeating it shows nothing accumulates. */
const ROUNDS = 200;

const SESSION_NOT_FOUND = {
  code: -32001,
  message: 'Session not found',
  data: { detail: 'The session is unknown or has expired: initialize a new one' },
};

describe('a subscribe whose session is deleted while its exists hook runs', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ providers: [Gates, GatedTemplates] });
  });
  afterAll(async () => {
    fixture.app.get(Gates).openAll();
    await fixture.close();
  });

  it(`answers 404 "Session not found" and stores nothing (${ROUNDS} rounds)`, async () => {
    const gates = fixture.app.get(Gates);
    const notifier = fixture.app.get(ResourceNotificationService);
    const subscriptions = fixture.app.get<McpSubscriptionStore>(MCP_SUBSCRIPTION_STORE);

    for (let round = 0; round < ROUNDS; round++) {
      const { headers } = await openSession(fixture.endpoint);
      const uri = `gated://items/${round}`;
      const gate = gates.gate(`exists:${round}`);
      const subscribing = rawPost(
        fixture.endpoint,
        { jsonrpc: '2.0', id: round, method: 'resources/subscribe', params: { uri } },
        headers,
      );
      await gate.whenArrived(1);
      expect((await rawRequest(fixture.endpoint, 'DELETE', headers)).status).toBe(204);
      gate.open();

      const answer = await subscribing;
      expect({ status: answer.status, body: answer.json }).toEqual({
        status: 404,
        body: { jsonrpc: '2.0', id: round, error: SESSION_NOT_FOUND },
      });
      expect(await notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 0, listeners: 0 });
    }
    expect(await subscriptions.count()).toBe(0);
  }, 60_000);
});

describe('a GET stream whose session is deleted while it is set up', () => {
  let fixture: FixtureApp;
  const backend = new GatedLookupBackend();

  beforeAll(async () => {
    fixture = await startFixtureApp({ mcp: { backend } });
  });
  afterAll(() => fixture.close());

  it(`answers 404 and never streams (${ROUNDS} rounds)`, async () => {
    const liveStreams = fixture.app.get<McpLiveStreams>(MCP_LIVE_STREAMS);
    const notifier = fixture.app.get(ResourceNotificationService);

    for (let round = 0; round < ROUNDS; round++) {
      const { sessionId, headers } = await openSession(fixture.endpoint);
      const lookup = backend.holdNextLookup();
      const getting = openSseClient(fixture.endpoint, { headers });
      await lookup.whenArrived(1);
      expect((await rawRequest(fixture.endpoint, 'DELETE', headers)).status).toBe(204);
      lookup.open();

      const stream = await getting;
      await within(stream.ended, 2_000, 'the end of the refused GET');
      expect({ status: stream.status, body: JSON.parse(stream.text || 'null') }).toEqual({
        status: 404,
        body: { jsonrpc: '2.0', id: null, error: SESSION_NOT_FOUND },
      });
      expect(stream.events).toEqual([]);
      expect(liveStreams.holds(sessionId)).toBe(false);
      // Nothing reaches the ended session afterwards either.
      expect(await notifier.notifyResourceListChanged()).toEqual({ sessions: 0, listeners: 0 });
    }
  }, 60_000);
});
