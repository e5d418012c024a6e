/**
 * Resource-server mode under stress: key rotation at the provider picked up without a restart,
 * the provider down (503 for tokens that need a fresh key, cached keys keep working), per-principal
 * limits (tool-call rate and session cap, 429 with Retry-After), and the direct HTTP mount.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { McpJwtVerifier } from '@app/mcp';
import { rawPost } from '../support/raw-http.js';
import { rpc } from '../support/http-wire.js';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { freePort } from '../support/free-port.js';
import { NOTES_SCOPES, resourceOn, startAuthApp, type AuthApp } from '../support/oauth/auth-app.js';
import { authedSession, bearer, call, challengeOf, initializeParams } from '../support/oauth/auth-http.js';
import { OpenTools, ScopedNotes } from '../fixtures/scoped-notes.fixture.js';

const ALL_SCOPES = NOTES_SCOPES.join(' ');
const OTHER = { clientId: 'other-client', clientSecret: 'other-secret' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams() };

describe('Authorization resilience', () => {
  let provider: OidcHarness;
  let running: AuthApp | undefined;
  let port: number;
  /** Resources the provider issues tokens for: one per app, each on a port of its own. */
  const resources: Record<string, { scope: string }> = {};

  beforeAll(async () => {
    provider = await OidcHarness.start({
      resources,
      clients: [
        { clientId: 'mcp-client', clientSecret: 'mcp-secret', scope: ALL_SCOPES },
        { ...OTHER, scope: ALL_SCOPES },
      ],
    });
  });

  // A fresh port per app: a client's pooled connection to a closed app is never reused.
  beforeEach(async () => {
    port = await freePort();
    resources[resourceOn(port)] = { scope: ALL_SCOPES };
  });

  afterEach(async () => {
    await provider.up();
    await running?.close();
    running = undefined;
  });

  afterAll(() => provider?.close());

  const token = (client = {}) => provider.token({ resource: resourceOn(port), scope: ALL_SCOPES, ...client });

  describe('key rotation and outages at the provider', () => {
    beforeEach(async () => {
      running = await startAuthApp(
        {
          provider,
          providers: [OpenTools],
          auth: {
            // No cooldown, so a rotation is picked up at the first token that names the new key.
            verifier: new McpJwtVerifier({ issuer: provider.issuer, audience: resourceOn(port), jwksCooldownMs: 0 }),
          },
        },
        port,
      );
    });

    it('picks up a rotated key without a restart', async () => {
      const before = await token();
      expect((await rawPost(running!.endpoint, INITIALIZE, bearer(before))).status).toBe(200);
      await provider.rotateKeys({ retireOld: true });
      const after = await token();
      expect((await rawPost(running!.endpoint, INITIALIZE, bearer(after))).status).toBe(200);
      // The retired key is gone from the provider's set: its tokens no longer verify.
      const retired = await rawPost(running!.endpoint, INITIALIZE, bearer(before));
      expect(retired.status).toBe(401);
      expect(challengeOf(retired.headers.get('www-authenticate')).error_description).toBe(
        "No key of the issuer matches the token's key id",
      );
    });

    it('answers 503 with Retry-After (not 401) while the provider is down for a token that needs a fresh key; cached keys keep working', async () => {
      const cached = await token();
      const session = await authedSession(running!.endpoint, cached);
      await provider.rotateKeys();
      const fresh = await token();
      await provider.down();

      const unavailable = await rawPost(running!.endpoint, INITIALIZE, bearer(fresh));
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get('retry-after')).toBe('5');
      expect(unavailable.headers.get('www-authenticate')).toBeNull();
      expect(unavailable.json).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message: 'Service unavailable',
          data: { detail: 'The authorization server cannot be reached to verify the access token; retry shortly' },
        },
      });
      const stillWorks = await call(running!.endpoint, cached, session, 'tools/call', { name: 'whoami' });
      expect(stillWorks.status).toBe(200);

      await provider.up();
      expect((await rawPost(running!.endpoint, INITIALIZE, bearer(fresh))).status).toBe(200);
    });
  });

  describe('per-principal limits', () => {
    it('counts tool calls per principal across its sessions: 429 with Retry-After past the limit', async () => {
      running = await startAuthApp(
        { provider, providers: [OpenTools], mcp: { limits: { toolRateLimit: { limit: 2, windowMs: 60_000 } } } },
        port,
      );
      const alice = await token();
      const first = await authedSession(running.endpoint, alice);
      const second = await authedSession(running.endpoint, alice);
      expect((await call(running.endpoint, alice, first, 'tools/call', { name: 'whoami' })).status).toBe(200);
      expect((await call(running.endpoint, alice, second, 'tools/call', { name: 'whoami' })).status).toBe(200);
      const limited = await call(running.endpoint, alice, first, 'tools/call', { name: 'whoami' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
      expect(limited.json.error).toEqual({
        code: -32004,
        message: 'Too many requests',
        data: expect.objectContaining({ limit: 2, windowMs: 60_000, retryAfterMs: expect.any(Number) }),
      });
      // Another principal has its own budget.
      const bob = await token(OTHER);
      const bobs = await authedSession(running.endpoint, bob);
      expect((await call(running.endpoint, bob, bobs, 'tools/call', { name: 'whoami' })).status).toBe(200);
    });

    it('caps the sessions of one principal: 429 with Retry-After, until one ends', async () => {
      running = await startAuthApp({ provider, providers: [OpenTools], mcp: { sessions: { maxPerCaller: 2 } } }, port);
      const alice = await token();
      const first = await authedSession(running.endpoint, alice);
      await authedSession(running.endpoint, alice);
      const refused = await rawPost(running.endpoint, INITIALIZE, bearer(alice));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.json).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32004,
          message: 'Too many sessions',
          data: {
            limit: 2,
            detail: 'This caller already holds its limit of 2 sessions; end one (DELETE) or let one expire',
          },
        },
      });
      // Another principal is not affected.
      expect((await rawPost(running.endpoint, INITIALIZE, bearer(await token(OTHER)))).status).toBe(200);
      // Ending a session gives its place back.
      const ended = await fetch(running.endpoint, {
        method: 'DELETE',
        headers: { ...first.headers, ...bearer(alice) },
      });
      expect(ended.status).toBe(204);
      expect((await rawPost(running.endpoint, INITIALIZE, bearer(alice))).status).toBe(200);
    });
  });

  describe('on the direct mount', () => {
    it('checks tokens and binds sessions as the controller mount does', async () => {
      running = await startAuthApp(
        { provider, providers: [ScopedNotes, OpenTools], mcp: { http: { path: '/mcp', mount: 'direct' } } },
        port,
      );
      const none = await rawPost(running.endpoint, INITIALIZE);
      expect(none.status).toBe(401);
      expect(challengeOf(none.headers.get('www-authenticate')).resource_metadata).toBe(
        `${running.origin}/.well-known/oauth-protected-resource/mcp`,
      );
      const alice = await token();
      const session = await authedSession(running.endpoint, alice);
      const hijack = await rawPost(running.endpoint, rpc(3, 'tools/list'), {
        ...session.headers,
        ...bearer(await token(OTHER)),
      });
      expect(hijack.status).toBe(404);
    });
  });
});
