/**
 * Protected Resource Metadata (RFC 9728) in resource-server mode: served unauthenticated at the
 * path-aware and root well-known URIs, with CORS, GET and OPTIONS only, on both HTTP mounts and
 * with `forRootAsync`; absent without `auth`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { McpModule } from '@app/mcp';
import { FIXTURE_SERVER_INFO, startFixtureApp } from '../fixtures/fixture-app.js';
import { freePort } from '../support/free-port.js';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { NOTES_SCOPES, resourceOn, startAuthApp, type AuthApp } from '../support/oauth/auth-app.js';

describe('Protected Resource Metadata', () => {
  let provider: OidcHarness;
  let running: AuthApp | undefined;

  beforeAll(async () => {
    provider = await OidcHarness.start({ resources: {} });
  });

  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  afterAll(() => provider?.close());

  const expectedDocument = (resource: string) => ({
    resource,
    authorization_servers: [provider.issuer],
    bearer_methods_supported: ['header'],
    resource_name: FIXTURE_SERVER_INFO.name,
    scopes_supported: NOTES_SCOPES,
  });

  describe.each(['controller', 'direct'] as const)('on the %s mount', (mount) => {
    it('serves the document at the path-aware and the root well-known URI, without a token', async () => {
      running = await startAuthApp({ provider, mcp: { http: { path: '/mcp', mount } } });
      for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
        const response = await fetch(`${running.origin}${path}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
        expect(await response.json()).toEqual(expectedDocument(running.endpoint));
      }
    });

    it('answers a CORS preflight and refuses other methods with 405', async () => {
      running = await startAuthApp({ provider, mcp: { http: { path: '/mcp', mount } } });
      const url = `${running.origin}/.well-known/oauth-protected-resource/mcp`;
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'mcp-protocol-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
      expect(preflight.headers.get('access-control-allow-headers')).toBe('mcp-protocol-version');
      for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
        const refused = await fetch(url, { method });
        expect(refused.status).toBe(405);
        expect(refused.headers.get('allow')).toBe('GET, OPTIONS');
      }
    });
  });

  it('follows a custom endpoint path, and leaves other routes to the application', async () => {
    running = await startAuthApp({ provider, mcp: { http: { path: '/api/v1/mcp' } } });
    expect(running.endpoint).toMatch(/\/api\/v1\/mcp$/);
    const response = await fetch(`${running.origin}/.well-known/oauth-protected-resource/api/v1/mcp`);
    expect(await response.json()).toEqual(expectedDocument(running.endpoint));
    expect((await fetch(`${running.origin}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });

  it('works with forRootAsync', async () => {
    const port = await freePort();
    const resource = resourceOn(port);
    running = await startAuthApp(
      {
        provider,
        mcpModule: McpModule.forRootAsync({
          useFactory: async () => ({
            serverInfo: FIXTURE_SERVER_INFO,
            auth: { resource, authorizationServers: [provider.issuer], scopesSupported: NOTES_SCOPES },
          }),
        }),
      },
      port,
    );
    const response = await fetch(`${running.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(await response.json()).toEqual(expectedDocument(resource));
  });

  it('is not served without auth', async () => {
    const fixture = await startFixtureApp();
    try {
      expect((await fetch(`${fixture.origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
    } finally {
      await fixture.close();
    }
  });

  it('fails startup on an invalid auth option, naming it', async () => {
    await expect(startAuthApp({ provider, auth: { resource: 'http://mcp.example.com/mcp' } })).rejects.toThrow(
      /auth\.resource' must be an https: URL/,
    );
  });
});
