/**
 * "JSON-only clients and server→client requests": a client that accepts only JSON can
 * hear the server's own requests (`ctx.elicit`, `ctx.sample`) only on its GET stream. Without
 * one, the request fails at once with a clear tool error instead of waiting out the
 * client-request timeout; with one, the request goes out on it.
 */
import { AskingTools } from '../fixtures/asking.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { within } from '../support/http-wire.js';
import { rawPost } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';

/** Long enough that a request waiting for it would fail the test's own deadline by far. */
const CLIENT_REQUEST_TIMEOUT_MS = 120_000;
const JSON_ONLY = { accept: 'application/json' };

/** A raw session whose client declares elicitation. */
async function elicitingSession(endpoint: string) {
  const response = await rawPost(endpoint, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'json', version: '1' },
    },
  });
  const headers = { 'mcp-session-id': response.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await rawPost(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

const askUser = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'ask_user', arguments: {} },
});

describe('a client that accepts only JSON', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [AskingTools],
      mcp: { limits: { clientRequestTimeoutMs: CLIENT_REQUEST_TIMEOUT_MS } },
    });
  });
  afterAll(() => fixture.close());

  it('without a GET stream: ctx.elicit fails at once with a tool error naming the missing channel', async () => {
    const headers = await elicitingSession(fixture.endpoint);
    const response = await within(
      rawPost(fixture.endpoint, askUser(2), { ...headers, ...JSON_ONLY }),
      3_000,
      'the answer of a tool that elicits without a channel',
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.json).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {
        isError: true,
        content: [
          {
            type: 'text',
            text: 'Cannot send elicitation/create to the client: no open channel to the client (a GET stream or an SSE answer)',
          },
        ],
      },
    });
  });

  it('with a GET stream: the elicitation goes out on it, and its answer reaches the tool', async () => {
    const headers = await elicitingSession(fixture.endpoint);
    const stream = await openSseClient(fixture.endpoint, { headers });
    const call = rawPost(fixture.endpoint, askUser(3), { ...headers, ...JSON_ONLY });

    const asked = await stream.waitFor((event) => event.json?.method === 'elicitation/create');
    expect(asked.json.params).toEqual(expect.objectContaining({ message: 'What is your name?' }));
    const answer = { jsonrpc: '2.0', id: asked.json.id, result: { action: 'accept', content: { name: 'Ada' } } };
    expect((await rawPost(fixture.endpoint, answer, headers)).status).toBe(202);

    const response = await within(call, 5_000, 'the answer of the eliciting tool');
    expect(response.json).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text: 'hello Ada' }] },
    });
    stream.close();
  });
});
