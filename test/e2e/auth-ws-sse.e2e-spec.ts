/**
 * Resource-server mode on the connection transports, against a real authorization server: the
 * WebSocket upgrade and legacy HTTP+SSE get the checks Streamable HTTP gets (docs/authorization.md),
 * sessions and streams belong to their principal, scopes are enforced in-band.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { accessTokenClaims, forgeSigned } from '../support/oauth/token-forger.js';
import { INVALID_TOKEN_CASES, invalidTokenCases } from '../support/oauth/invalid-tokens.js';
import { freePort } from '../support/free-port.js';
import { NOTES_SCOPES, resourceOn, startAuthApp, type AuthApp } from '../support/oauth/auth-app.js';
import { authedSession, bearer, challengeOf } from '../support/oauth/auth-http.js';
import { refusedUpgrade } from '../support/oauth/refused-upgrade.js';
import { openWs, wsUrl } from '../support/ws-client.js';
import { openSse, mcpPostHeaders, rpc } from '../support/http-wire.js';
import { rawPost } from '../support/raw-http.js';
import { NOTES_URI, OpenTools, ScopedNotes } from '../fixtures/scoped-notes.fixture.js';

const ALL_SCOPES = NOTES_SCOPES.join(' ');
const OTHER = { clientId: 'other-client', clientSecret: 'other-secret' };
const ELSEWHERE = 'http://127.0.0.1:1/other';

describe('Authorization on the WebSocket upgrade and legacy SSE', () => {
  let provider: OidcHarness;
  let foreign: OidcHarness;
  let app: AuthApp;
  let prm: string;
  let invalidTokens: ReturnType<typeof invalidTokenCases>;

  const token = (scope = ALL_SCOPES, client = {}) => provider.token({ resource: app.endpoint, scope, ...client });
  const claims = (overrides: Record<string, unknown> = {}) => ({
    ...accessTokenClaims({ issuer: provider.issuer, audience: app.endpoint }),
    ...overrides,
  });

  beforeAll(async () => {
    const port = await freePort();
    const resources = { [resourceOn(port)]: { scope: ALL_SCOPES }, [ELSEWHERE]: { scope: ALL_SCOPES } };
    foreign = await OidcHarness.start({ resources });
    provider = await OidcHarness.start({
      resources,
      clients: [
        { clientId: 'mcp-client', clientSecret: 'mcp-secret', scope: ALL_SCOPES },
        { ...OTHER, scope: ALL_SCOPES },
      ],
    });
    app = await startAuthApp({ provider, providers: [ScopedNotes, OpenTools], mcp: { ws: {}, sse: {} } }, port);
    invalidTokens = invalidTokenCases(provider, foreign, app.endpoint, ELSEWHERE);
    prm = `${app.origin}/.well-known/oauth-protected-resource/mcp`;
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
    await foreign?.close();
  });

  /** The challenge of a 401 for an invalid token. */
  const invalidTokenChallenge = (description: string) => ({
    error: 'invalid_token',
    error_description: description,
    scope: ALL_SCOPES,
    resource_metadata: prm,
  });

  describe('WebSocket upgrade', () => {
    const ws = () => wsUrl(app.origin);

    it('without a token: 401 with the challenge and a JSON-RPC body', async () => {
      const refusal = await refusedUpgrade(ws(), {});
      expect(refusal.status).toBe(401);
      expect(refusal.headers['www-authenticate']).toBe(`Bearer scope="${ALL_SCOPES}", resource_metadata="${prm}"`);
      expect(JSON.parse(refusal.body)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32005,
          message: 'Unauthorized',
          data: { detail: 'This MCP server needs an access token: send Authorization: Bearer <token>' },
        },
      });
    });

    it.each(INVALID_TOKEN_CASES)('with an invalid token (%s): 401 with the challenge', async (name) => {
      const { token: invalid, description } = invalidTokens.get(name)!;
      const refusal = await refusedUpgrade(ws(), bearer(await invalid()));
      expect(refusal.status).toBe(401);
      expect(challengeOf(refusal.headers['www-authenticate'] as string)).toEqual(invalidTokenChallenge(description));
      expect(JSON.parse(refusal.body).error).toEqual({
        code: -32005,
        message: 'Unauthorized',
        data: { detail: description },
      });
    });

    it('with a malformed Authorization header: 400 invalid_request', async () => {
      const refusal = await refusedUpgrade(ws(), { authorization: 'Bearer a b' });
      expect(refusal.status).toBe(400);
      expect(challengeOf(refusal.headers['www-authenticate'] as string).error).toBe('invalid_request');
    });

    it('a token in the query string is refused, never used', async () => {
      const refusal = await refusedUpgrade(`${ws()}?access_token=${await token()}`, {});
      expect(refusal.status).toBe(401);
      expect(challengeOf(refusal.headers['www-authenticate'] as string).error).toBe('invalid_token');
    });

    it('with a valid token: the socket carries the principal; scopes are enforced in-band', async () => {
      const client = await openWs(ws(), { headers: bearer(await token('notes:read')) });
      try {
        await client.initialize();
        const whoami = await client.request('tools/call', { name: 'whoami' });
        expect(JSON.parse(whoami.result.content[0].text)).toMatchObject({
          clientId: 'mcp-client',
          scopes: ['notes:read'],
        });
        const refused = await client.request('tools/call', { name: 'notes.write' });
        expect(refused.error).toEqual({
          code: -32003,
          message: 'Insufficient scope',
          data: {
            requiredScopes: ['notes:read', 'notes:write'],
            scope: 'notes:read notes:write',
            detail: 'This request needs the scope(s) notes:write; request a token that includes them',
          },
        });
        expect((await client.request('resources/subscribe', { uri: NOTES_URI })).result).toEqual({});
      } finally {
        await client.close();
      }
    });

    it('subscribing to a URI the principal may not read is refused in-band', async () => {
      const client = await openWs(ws(), { headers: bearer(await token('')) });
      try {
        await client.initialize();
        const refused = await client.request('resources/subscribe', { uri: NOTES_URI });
        expect(refused.error.code).toBe(-32003);
        expect(refused.error.data.requiredScopes).toEqual(['notes:read']);
      } finally {
        await client.close();
      }
    });

    it("cannot join another principal's session with MCP-Session-Id", async () => {
      const alice = await token();
      const session = await authedSession(app.endpoint, alice);
      const client = await openWs(ws(), {
        headers: { ...bearer(await token(ALL_SCOPES, OTHER)), 'mcp-session-id': session.sessionId },
      });
      try {
        // Not joined: the socket has no session, so anything but initialize is refused.
        const refused = await client.request('tools/list');
        expect(refused.error).toMatchObject({ code: -32600, message: 'Server not initialized' });
      } finally {
        await client.close();
      }
      // The owner joins it.
      const owner = await openWs(ws(), { headers: { ...bearer(alice), 'mcp-session-id': session.sessionId } });
      try {
        expect((await owner.request('tools/list')).result.tools.length).toBeGreaterThan(0);
      } finally {
        await owner.close();
      }
    });

    it('closes the socket (1008) when the upgrade token expires', async () => {
      // Expired 5 s ago, within the verifier's clock skew: accepted, then closed at once.
      const ending = await forgeSigned(provider.currentKey, claims({ exp: Math.floor(Date.now() / 1000) - 5 }));
      const client = await openWs(ws(), { headers: bearer(ending) });
      expect(await client.closed).toEqual({ code: 1008, reason: 'Access token expired' });
    });
  });

  describe('legacy HTTP+SSE', () => {
    const sse = () => `${app.origin}/sse`;

    it('GET /sse without a token, or with one in the query: 401 with the challenge', async () => {
      for (const [url, error] of [
        [sse(), undefined],
        [`${sse()}?access_token=${await token()}`, 'invalid_token'],
      ] as const) {
        const response = await fetch(url, { headers: { accept: 'text/event-stream' } });
        expect(response.status).toBe(401);
        const challenge = challengeOf(response.headers.get('www-authenticate'));
        expect(challenge.resource_metadata).toBe(prm);
        expect(challenge.error).toBe(error);
        expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32005);
      }
    });

    it.each(INVALID_TOKEN_CASES)('GET /sse and POST /messages with an invalid token (%s): 401', async (name) => {
      const { token: invalid, description } = invalidTokens.get(name)!;
      const bad = bearer(await invalid());
      const open = await fetch(sse(), { headers: { accept: 'text/event-stream', ...bad } });
      expect(open.status).toBe(401);
      expect(challengeOf(open.headers.get('www-authenticate'))).toEqual(invalidTokenChallenge(description));
      const post = await rawPost(`${app.origin}/messages?sessionId=any`, rpc(1, 'ping'), bad);
      expect(post.status).toBe(401);
      expect(challengeOf(post.headers.get('www-authenticate'))).toEqual(invalidTokenChallenge(description));
    });

    it("POST /messages needs a token, and another principal's is answered as an unknown stream", async () => {
      const alice = await token();
      const stream = await openSse(sse(), { headers: { accept: 'text/event-stream', ...bearer(alice) } });
      try {
        const endpoint = await stream.waitForEvent((event) => event.event === 'endpoint');
        const messages = `${app.origin}${endpoint.data}`;
        const init = rpc(1, 'initialize', {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        });

        const anonymous = await rawPost(messages, init);
        expect(anonymous.status).toBe(401);

        const unknown = await rawPost(
          `${app.origin}/messages?sessionId=unknown`,
          init,
          bearer(await token(ALL_SCOPES, OTHER)),
        );
        const foreign = await rawPost(messages, init, bearer(await token(ALL_SCOPES, OTHER)));
        expect(foreign.status).toBe(404);
        expect(foreign.text).toBe(unknown.text);

        expect((await rawPost(messages, init, bearer(alice))).status).toBe(202);
        await stream.waitForEvent((event) => event.data.includes('"id":1') && event.data.includes('"result"'));
      } finally {
        stream.close();
      }
    });

    it('enforces scopes in-band; a newer token of the same principal applies from its message (step-up)', async () => {
      const reader = await token('notes:read');
      const stream = await openSse(sse(), { headers: { accept: 'text/event-stream', ...bearer(reader) } });
      try {
        const endpoint = await stream.waitForEvent((event) => event.event === 'endpoint');
        const messages = `${app.origin}${endpoint.data}`;
        const post = (body: object, bearerToken: string) =>
          rawPost(messages, body, mcpPostHeaders(bearer(bearerToken)));
        await post(
          rpc(1, 'initialize', {
            protocolVersion: '2024-11-05',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          }),
          reader,
        );
        await stream.waitForEvent((event) => event.data.includes('"id":1'));

        await post(rpc(2, 'tools/call', { name: 'notes.write' }), reader);
        const refused = JSON.parse((await stream.waitForEvent((event) => event.data.includes('"id":2'))).data);
        expect(refused.error.code).toBe(-32003);

        await post(rpc(3, 'tools/call', { name: 'notes.write', arguments: { title: 't' } }), await token(ALL_SCOPES));
        const stepped = JSON.parse((await stream.waitForEvent((event) => event.data.includes('"id":3'))).data);
        expect(JSON.parse(stepped.result.content[0].text)).toEqual({ written: 't' });
      } finally {
        stream.close();
      }
    });
  });
});
