/**
 * Resource-server mode over Streamable HTTP, against a real authorization server
 * (oidc-provider): every refusal of docs/authorization.md, each case with its exact status,
 * challenge and body, on POST, GET and DELETE.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { rawPost, rawRequest, type RawResponse } from '../support/raw-http.js';
import { openSse, mcpPostHeaders, rpc } from '../support/http-wire.js';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { accessTokenClaims, forgeSigned } from '../support/oauth/token-forger.js';
import { NOTES_SCOPES, resourceOn, startAuthApp, type AuthApp } from '../support/oauth/auth-app.js';
import { freePort } from '../support/free-port.js';
import { INVALID_TOKEN_CASES, invalidTokenCases } from '../support/oauth/invalid-tokens.js';
import { authedSession, bearer, call, challengeOf, initializeParams } from '../support/oauth/auth-http.js';
import { NOTES_URI, OpenTools, ScopedNotes } from '../fixtures/scoped-notes.fixture.js';

const OTHER = { clientId: 'other-client', clientSecret: 'other-secret' };
const ALL_SCOPES = NOTES_SCOPES.join(' ');
/** Another resource of the same authorization server. */
const ELSEWHERE = 'http://127.0.0.1:1/other';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams() };

describe('Authorization over Streamable HTTP', () => {
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

  /** A 401 with the challenge every 401 carries, `error="invalid_token"` and this description. */
  function expectInvalidToken(response: RawResponse, description: string): void {
    expect(response.status).toBe(401);
    expect(challengeOf(response.headers.get('www-authenticate'))).toEqual({
      error: 'invalid_token',
      error_description: description,
      scope: ALL_SCOPES,
      resource_metadata: prm,
    });
    expect(response.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32005, message: 'Unauthorized', data: { detail: description } },
    });
  }

  beforeAll(async () => {
    // Tokens name the app's canonical URI, port included: the port is chosen first.
    const port = await freePort();
    const resources = { [resourceOn(port)]: { scope: ALL_SCOPES }, [ELSEWHERE]: { scope: ALL_SCOPES } };
    const clients = [
      { clientId: 'mcp-client', clientSecret: 'mcp-secret', scope: ALL_SCOPES },
      { ...OTHER, scope: ALL_SCOPES },
    ];
    provider = await OidcHarness.start({ resources, clients });
    foreign = await OidcHarness.start({ resources });
    app = await startAuthApp({ provider, providers: [ScopedNotes, OpenTools] }, port);
    invalidTokens = invalidTokenCases(provider, foreign, app.endpoint, ELSEWHERE);
    prm = `${app.origin}/.well-known/oauth-protected-resource/mcp`;
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
    await foreign?.close();
  });

  describe('no token (§6 row 24)', () => {
    it('POST answers 401 naming the metadata and the scopes, without an error code', async () => {
      const response = await rawPost(app.endpoint, INITIALIZE);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer scope="notes:read notes:write", resource_metadata="${prm}"`,
      );
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32005,
          message: 'Unauthorized',
          data: { detail: 'This MCP server needs an access token: send Authorization: Bearer <token>' },
        },
      });
    });

    it('GET and DELETE of a live session answer 401 too: the session is no credential', async () => {
      const { headers } = await authedSession(app.endpoint, await token());
      for (const method of ['GET', 'DELETE']) {
        const response = await rawRequest(app.endpoint, method, { ...headers, accept: 'text/event-stream' });
        expect(response.status).toBe(401);
        expect(challengeOf(response.headers.get('www-authenticate'))).toEqual({
          scope: ALL_SCOPES,
          resource_metadata: prm,
        });
      }
      const list = await rawPost(app.endpoint, rpc(2, 'tools/list'), headers);
      expect(list.status).toBe(401);
    });

    it('a Basic credential is no bearer token', async () => {
      const response = await rawPost(app.endpoint, INITIALIZE, { authorization: 'Basic bWNwOnNlY3JldA==' });
      expect(response.status).toBe(401);
      expect(challengeOf(response.headers.get('www-authenticate')).error).toBeUndefined();
    });
  });

  describe('invalid tokens (§4 row 8): 401 invalid_token with the challenge', () => {
    it.each(INVALID_TOKEN_CASES)('%s', async (name) => {
      const { token: invalid, description } = invalidTokens.get(name)!;
      expectInvalidToken(await rawPost(app.endpoint, INITIALIZE, bearer(await invalid())), description);
    });

    it('the same rejections on GET and DELETE', async () => {
      const { headers } = await authedSession(app.endpoint, await token());
      const expired = await forgeSigned(provider.currentKey, claims({ exp: Math.floor(Date.now() / 1000) - 120 }));
      for (const method of ['GET', 'DELETE']) {
        expectInvalidToken(
          await rawRequest(app.endpoint, method, { ...headers, ...bearer(expired), accept: 'text/event-stream' }),
          'The access token has expired',
        );
      }
    });
  });

  describe('tokens in the URI (§6 row 24)', () => {
    it('a valid token in ?access_token= is refused with 401, never used', async () => {
      const valid = await token();
      const response = await rawPost(`${app.endpoint}?access_token=${valid}`, INITIALIZE);
      expectInvalidToken(response, 'Access tokens in the URI are refused; send the token in the Authorization header');
    });

    it('a token both in the header and in the URI is a malformed request (400 invalid_request)', async () => {
      const valid = await token();
      const response = await rawPost(`${app.endpoint}?access_token=${valid}`, INITIALIZE, bearer(valid));
      expect(response.status).toBe(400);
      const detail = 'Send the access token in the Authorization header only, not also in the URI';
      expect(challengeOf(response.headers.get('www-authenticate'))).toEqual({
        error: 'invalid_request',
        error_description: detail,
        resource_metadata: prm,
      });
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Bad authorization request', data: { detail } },
      });
    });

    it('a malformed Authorization header is 400 invalid_request', async () => {
      const response = await rawPost(app.endpoint, INITIALIZE, { authorization: 'Bearer two tokens' });
      expect(response.status).toBe(400);
      expect(challengeOf(response.headers.get('www-authenticate')).error).toBe('invalid_request');
    });
  });

  describe('a valid token', () => {
    it('initializes a session; the principal reaches the handler as ctx.auth / @McpAuth, without the token', async () => {
      const session = await authedSession(app.endpoint, await token('notes:read'));
      const response = await call(app.endpoint, await token('notes:read'), session, 'tools/call', { name: 'whoami' });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.json.result.content[0].text)).toEqual({
        issuer: provider.issuer,
        subject: 'mcp-client',
        clientId: 'mcp-client',
        scopes: ['notes:read'],
        audience: [app.endpoint],
        hasToken: false,
        claimKeys: ['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub'],
      });
    });

    it('Nest guards see the principal', async () => {
      const valid = await token();
      const session = await authedSession(app.endpoint, valid);
      const allowed = await call(app.endpoint, valid, session, 'tools/call', {
        name: 'guarded',
        _meta: { allowClient: 'mcp-client' },
      });
      expect(allowed.json.result.content[0].text).toBe('guard let mcp-client through');
      const refused = await call(app.endpoint, valid, session, 'tools/call', {
        name: 'guarded',
        _meta: { allowClient: 'someone-else' },
      });
      expect(refused.json.error).toEqual({
        code: -32003,
        message: 'Forbidden',
        data: { detail: 'client mcp-client may not use this tool' },
      });
    });
  });

  describe('sessions belong to their principal (§4 row 4)', () => {
    it("another principal's valid token on someone else's session gets the same 404 as an unknown session", async () => {
      const alice = await token();
      const bob = await token(ALL_SCOPES, OTHER);
      const session = await authedSession(app.endpoint, alice);
      const unknown = { 'mcp-session-id': randomBytes(24).toString('base64url'), 'mcp-protocol-version': '2025-11-25' };
      const baseline = await rawPost(app.endpoint, rpc(7, 'tools/list'), { ...unknown, ...bearer(bob) });
      expect(baseline.status).toBe(404);

      const hijack = await rawPost(app.endpoint, rpc(7, 'tools/list'), { ...session.headers, ...bearer(bob) });
      expect(hijack.status).toBe(404);
      expect(hijack.text).toBe(baseline.text);
      expect(hijack.headers.get('mcp-session-id')).toBeNull();

      for (const method of ['GET', 'DELETE']) {
        const foreignAttempt = await rawRequest(app.endpoint, method, {
          ...session.headers,
          ...bearer(bob),
          accept: 'text/event-stream',
        });
        const unknownAttempt = await rawRequest(app.endpoint, method, {
          ...unknown,
          ...bearer(bob),
          accept: 'text/event-stream',
        });
        expect(foreignAttempt.status).toBe(404);
        expect(foreignAttempt.text).toBe(unknownAttempt.text);
      }
      // Bob's DELETE ended nothing: Alice's session still works.
      const mine = await rawPost(app.endpoint, rpc(8, 'tools/list'), { ...session.headers, ...bearer(alice) });
      expect(mine.status).toBe(200);
      expect(mine.json.result.tools.length).toBeGreaterThan(0);
    });

    it("initialize carrying another principal's session id gets a fresh session, never that one", async () => {
      const session = await authedSession(app.endpoint, await token());
      const response = await rawPost(app.endpoint, INITIALIZE, {
        'mcp-session-id': session.sessionId,
        ...bearer(await token(ALL_SCOPES, OTHER)),
      });
      expect(response.status).toBe(200);
      const minted = response.headers.get('mcp-session-id');
      expect(minted).toEqual(expect.any(String));
      expect(minted).not.toBe(session.sessionId);
    });

    it('insufficient scope answers 403 with the step-up challenge; a new token of the same principal applies from the next request', async () => {
      const reader = await token('notes:read');
      const session = await authedSession(app.endpoint, reader);
      const refused = await call(app.endpoint, reader, session, 'tools/call', { name: 'notes.write' });
      const detail = 'This request needs the scope(s) notes:write; request a token that includes them';
      expect(refused.status).toBe(403);
      expect(challengeOf(refused.headers.get('www-authenticate'))).toEqual({
        error: 'insufficient_scope',
        error_description: detail,
        scope: 'notes:read notes:write',
        resource_metadata: prm,
      });
      expect(refused.json.error).toEqual({
        code: -32003,
        message: 'Insufficient scope',
        data: { requiredScopes: ['notes:read', 'notes:write'], scope: 'notes:read notes:write', detail },
      });

      const writer = await token('notes:read notes:write');
      const stepped = await call(app.endpoint, writer, session, 'tools/call', {
        name: 'notes.write',
        arguments: { title: 'x' },
      });
      expect(stepped.status).toBe(200);
      expect(JSON.parse(stepped.json.result.content[0].text)).toEqual({ written: 'x' });
      // Scopes are per request: the narrower token is still refused on the same session.
      expect((await call(app.endpoint, reader, session, 'tools/call', { name: 'notes.write' })).status).toBe(403);
    });
  });

  describe('@RequireScopes on resources, templates and prompts', () => {
    it('read, get and completion need the scopes; 403 otherwise', async () => {
      const none = await token('');
      const session = await authedSession(app.endpoint, none);
      for (const [method, params] of [
        ['resources/read', { uri: NOTES_URI }],
        ['resources/read', { uri: 'notes://42' }],
        ['prompts/get', { name: 'notes.summary' }],
        [
          'completion/complete',
          { ref: { type: 'ref/prompt', name: 'notes.summary' }, argument: { name: 'topic', value: 'w' } },
        ],
        ['tools/call', { name: 'notes.read' }],
      ] as const) {
        const response = await call(app.endpoint, none, session, method, params);
        expect({ method, status: response.status, code: response.json?.error?.code }).toEqual({
          method,
          status: 403,
          code: -32003,
        });
        expect(challengeOf(response.headers.get('www-authenticate')).scope).toBe('notes:read');
      }
      const reader = await token('notes:read');
      expect(
        (await call(app.endpoint, reader, session, 'resources/read', { uri: 'notes://42' })).json.result.contents,
      ).toHaveLength(1);
      expect(
        (await call(app.endpoint, reader, session, 'prompts/get', { name: 'notes.summary' })).json.result.messages,
      ).toHaveLength(1);
    });

    it('subscribing to a URI needs the same right as reading it', async () => {
      const none = await token('');
      const session = await authedSession(app.endpoint, none);
      const refused = await call(app.endpoint, none, session, 'resources/subscribe', { uri: NOTES_URI });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe(-32003);
      const refusedTemplate = await call(app.endpoint, none, session, 'resources/subscribe', { uri: 'notes://7' });
      expect(refusedTemplate.status).toBe(403);
      const reader = await token('notes:read');
      const accepted = await call(app.endpoint, reader, session, 'resources/subscribe', { uri: NOTES_URI });
      expect(accepted.json.result).toEqual({});
    });

    it('lists show only what the caller may use', async () => {
      const names = async (scope: string) => {
        const valid = await token(scope);
        const session = await authedSession(app.endpoint, valid);
        const list = async (method: string, key: string, field: string) =>
          ((await call(app.endpoint, valid, session, method)).json.result[key] as Record<string, string>[]).map(
            (item) => item[field],
          );
        return {
          tools: await list('tools/list', 'tools', 'name'),
          resources: await list('resources/list', 'resources', 'uri'),
          templates: await list('resources/templates/list', 'resourceTemplates', 'uriTemplate'),
          prompts: await list('prompts/list', 'prompts', 'name'),
        };
      };
      expect(await names('')).toEqual({
        tools: ['ask', 'guarded', 'whoami'],
        resources: ['public://motd'],
        templates: [],
        prompts: [],
      });
      expect(await names('notes:read')).toEqual({
        tools: ['ask', 'guarded', 'notes.read', 'whoami'],
        resources: ['notes://all', 'public://motd'],
        templates: ['notes://{id}'],
        prompts: ['notes.summary'],
      });
      expect((await names(ALL_SCOPES)).tools).toEqual(['ask', 'guarded', 'notes.read', 'notes.write', 'whoami']);
    });
  });

  describe("a response to another principal's elicitation", () => {
    it('is refused (404, the session is not theirs) and the pending request stays for its owner', async () => {
      const alice = await token();
      const bob = await token(ALL_SCOPES, OTHER);
      const session = await authedSession(app.endpoint, alice, { elicitation: {} });
      const stream = await openSse(app.endpoint, {
        method: 'POST',
        headers: mcpPostHeaders({ ...session.headers, ...bearer(alice), accept: 'text/event-stream' }),
        body: JSON.stringify(rpc('ask-1', 'tools/call', { name: 'ask' })),
      });
      try {
        const asked = await stream.waitForEvent((event) => JSON.parse(event.data).method === 'elicitation/create');
        const requestId = JSON.parse(asked.data).id as string;
        const answer = (word: string) => ({
          jsonrpc: '2.0',
          id: requestId,
          result: { action: 'accept', content: { word } },
        });

        const injected = await rawPost(app.endpoint, answer('mallory'), { ...session.headers, ...bearer(bob) });
        expect(injected.status).toBe(404);
        expect(injected.json.error.code).toBe(-32001);

        const owned = await rawPost(app.endpoint, answer('alice'), { ...session.headers, ...bearer(alice) });
        expect(owned.status).toBe(202);
        const result = await stream.waitForEvent((event) => JSON.parse(event.data).id === 'ask-1');
        expect(JSON.parse(result.data).result.content[0].text).toBe('mcp-client said alice');
      } finally {
        stream.close();
      }
    });
  });

  describe('the modern era (MCP 2026-07-28) on the same endpoint', () => {
    const modernRequest = (id: number, method: string, params: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    });
    const modernHeaders = (method: string, name?: string) => ({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    });

    it('needs a token on every request: 401 with the challenge (never a fallback to legacy)', async () => {
      const response = await rawPost(
        app.endpoint,
        modernRequest(1, 'server/discover'),
        modernHeaders('server/discover'),
      );
      expect(response.status).toBe(401);
      expect(challengeOf(response.headers.get('www-authenticate'))).toEqual({
        scope: ALL_SCOPES,
        resource_metadata: prm,
      });
    });

    it('authorizes each request on its own token: 403 then the stepped-up token passes', async () => {
      const call = async (scope: string) =>
        rawPost(app.endpoint, modernRequest(2, 'tools/call', { name: 'notes.write' }), {
          ...modernHeaders('tools/call', 'notes.write'),
          ...bearer(await token(scope)),
        });
      const refused = await call('notes:read');
      expect(refused.status).toBe(403);
      expect(challengeOf(refused.headers.get('www-authenticate')).error).toBe('insufficient_scope');
      const passed = await call(ALL_SCOPES);
      expect(passed.status).toBe(200);
      expect(passed.json.result).toMatchObject({ resultType: 'complete' });
    });

    it('refuses an MRTR requestState to another principal', async () => {
      const alice = await token();
      const first = await rawPost(app.endpoint, modernRequest(3, 'tools/call', { name: 'ask' }), {
        ...modernHeaders('tools/call', 'ask'),
        ...bearer(alice),
      });
      expect(first.json.result.resultType).toBe('input_required');
      const [key] = Object.keys(first.json.result.inputRequests);
      const retry = modernRequest(4, 'tools/call', {
        name: 'ask',
        requestState: first.json.result.requestState,
        inputResponses: { [key]: { action: 'accept', content: { word: 'stolen' } } },
      });
      const stolen = await rawPost(app.endpoint, retry, {
        ...modernHeaders('tools/call', 'ask'),
        ...bearer(await token(ALL_SCOPES, OTHER)),
      });
      expect(stolen.json.error.code).toBe(-32602);
      expect(stolen.json.error.data.detail).toContain('issued to another caller');
      const owned = await rawPost(app.endpoint, retry, { ...modernHeaders('tools/call', 'ask'), ...bearer(alice) });
      expect(owned.json.result.content[0].text).toBe('mcp-client said stolen');
    });

    it('a listen leaves out the URIs its principal may not read', async () => {
      const stream = await openSse(app.endpoint, {
        method: 'POST',
        headers: mcpPostHeaders({
          ...modernHeaders('subscriptions/listen'),
          ...bearer(await token('')),
          accept: 'text/event-stream',
        }),
        body: JSON.stringify(
          modernRequest(5, 'subscriptions/listen', {
            notifications: { resourceSubscriptions: [NOTES_URI, 'public://motd'] },
          }),
        ),
      });
      try {
        const ack = JSON.parse((await stream.waitForEvent(() => true)).data);
        expect(ack).toMatchObject({
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { resourceSubscriptions: ['public://motd'] } },
        });
      } finally {
        stream.close();
      }
    });
  });
});
