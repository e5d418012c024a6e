/**
 * The official SDK clients against a resource server, with a real authorization server: each
 * discovers the Protected Resource Metadata from the 401, gets a token with the client
 * credentials grant (resource indicator = the metadata's `resource`) and calls tools; v2 also
 * steps up on a 403 insufficient_scope, inside the same session (v1's client credentials flow
 * always asks for its configured scope, so it cannot).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import {
  Client as ClientV2,
  ClientCredentialsProvider as ClientCredentialsProviderV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { freePort } from '../support/free-port.js';
import { NOTES_SCOPES, resourceOn, startAuthApp, type AuthApp } from '../support/oauth/auth-app.js';
import { OpenTools, ScopedNotes } from '../fixtures/scoped-notes.fixture.js';

const ALL_SCOPES = NOTES_SCOPES.join(' ');
const CLIENT = { clientId: 'mcp-client', clientSecret: 'mcp-secret' };

const textOf = (result: unknown): string =>
  ((result as { content: Array<{ text: string }> }).content[0] ?? { text: '' }).text;

describe('Official SDK clients with the client credentials grant', () => {
  let provider: OidcHarness;
  let app: AuthApp;
  let stepUpApp: AuthApp;

  beforeAll(async () => {
    const [port, stepUpPort] = [await freePort(), await freePort()];
    provider = await OidcHarness.start({
      resources: { [resourceOn(port)]: { scope: ALL_SCOPES }, [resourceOn(stepUpPort)]: { scope: ALL_SCOPES } },
      clients: [{ ...CLIENT, scope: ALL_SCOPES }],
    });
    app = await startAuthApp({ provider, providers: [ScopedNotes, OpenTools] }, port);
    // Challenges name only notes:read, so the first token cannot write: the client must step up.
    stepUpApp = await startAuthApp(
      { provider, providers: [ScopedNotes, OpenTools], auth: { challengeScopes: ['notes:read'] } },
      stepUpPort,
    );
  });

  afterAll(async () => {
    await app?.close();
    await stepUpApp?.close();
    await provider?.close();
  });

  it('SDK v1: discovers the metadata from the 401, gets a token and calls tools', async () => {
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(app.endpoint), {
      // SDK v1's client credentials flow asks for the scopes configured here, not the challenge's.
      authProvider: new ClientCredentialsProvider({ ...CLIENT, scope: ALL_SCOPES, expectedIssuer: provider.issuer }),
    });
    try {
      await client.connect(transport);
      expect(provider.hitsOf('/token')).toBeGreaterThan(0);
      const whoami = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(whoami).toMatchObject({ issuer: provider.issuer, clientId: 'mcp-client', scopes: NOTES_SCOPES });
      expect(JSON.parse(textOf(await client.callTool({ name: 'notes.write', arguments: { title: 'hi' } })))).toEqual({
        written: 'hi',
      });
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri).sort()).toEqual(['notes://all', 'public://motd']);
    } finally {
      await client.close();
    }
  });

  it('SDK v2: asks for the challenged scopes, steps up on 403 insufficient_scope and retries in the same session', async () => {
    const client = new ClientV2({ name: 'sdk-v2-step-up', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransportV2(new URL(stepUpApp.endpoint), {
      authProvider: new ClientCredentialsProviderV2({ ...CLIENT, expectedIssuer: provider.issuer }),
    });
    try {
      await client.connect(transport);
      const sessionId = transport.sessionId;
      const before = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(before.scopes).toEqual(['notes:read']);
      const written = await client.callTool({ name: 'notes.write', arguments: { title: 'stepped' } });
      expect(JSON.parse(textOf(written))).toEqual({ written: 'stepped' });
      const after = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(after.scopes).toEqual(['notes:read', 'notes:write']);
      expect(transport.sessionId).toBe(sessionId);
    } finally {
      await client.close();
    }
  });

  it('SDK v2 client (legacy negotiation, its default): the same flow', async () => {
    const client = new ClientV2({ name: 'sdk-v2', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransportV2(new URL(app.endpoint), {
      authProvider: new ClientCredentialsProviderV2({ ...CLIENT, expectedIssuer: provider.issuer }),
    });
    try {
      await client.connect(transport);
      const whoami = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(whoami).toMatchObject({ clientId: 'mcp-client', scopes: NOTES_SCOPES });
    } finally {
      await client.close();
    }
  });

  it('SDK v2 client in the modern era (pinned 2026-07-28): every request authorized on its token, MRTR and step-up included', async () => {
    const client = new ClientV2(
      { name: 'sdk-v2-modern', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { word: 'modern' } }));
    const transport = new StreamableHTTPClientTransportV2(new URL(stepUpApp.endpoint), {
      authProvider: new ClientCredentialsProviderV2({ ...CLIENT, expectedIssuer: provider.issuer }),
    });
    try {
      await client.connect(transport);
      expect(transport.sessionId).toBeUndefined();
      const before = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(before).toMatchObject({ clientId: 'mcp-client', scopes: ['notes:read'] });
      // An MRTR round trip: input_required, then the retry with the answer and the bound requestState.
      expect(textOf(await client.callTool({ name: 'ask', arguments: {} }))).toBe('mcp-client said modern');
      // 403 insufficient_scope on a modern request: the client steps up and retries.
      const written = await client.callTool({ name: 'notes.write', arguments: { title: 'modern' } });
      expect(JSON.parse(textOf(written))).toEqual({ written: 'modern' });
    } finally {
      await client.close();
    }
  });
});
