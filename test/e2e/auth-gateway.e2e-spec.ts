/**
 * The reference gateway in resource-server mode (`MCP_AUTH_ISSUER`), with a real authorization
 * server and the official SDK client: notes reads need `notes:read`, notes writes `notes:write`,
 * everything else a valid token.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { loadGatewayConfig } from '../../src/gateway.config.js';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { OidcHarness } from '../support/oauth/oidc-harness.js';
import { freePort } from '../support/free-port.js';
import { authedSession, bearer, call, challengeOf } from '../support/oauth/auth-http.js';
import { rawPost } from '../support/raw-http.js';
import { MessageLog } from '../support/message-log.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCOPES = 'notes:read notes:write';
const READER = { clientId: 'reader', clientSecret: 'reader-secret' };
const WRITER = { clientId: 'writer', clientSecret: 'writer-secret' };

const textOf = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0].text;

describe('The gateway with MCP_AUTH_ISSUER', () => {
  let provider: OidcHarness;
  let gateway: RunningGateway;

  beforeAll(async () => {
    const port = await freePort();
    provider = await OidcHarness.start({
      resources: { [`http://127.0.0.1:${port}/mcp`]: { scope: SCOPES } },
      clients: [
        { ...READER, scope: 'notes:read' },
        { ...WRITER, scope: SCOPES },
      ],
    });
    gateway = await startGateway({ URLS: `http://127.0.0.1:${port}`, MCP_AUTH_ISSUER: provider.issuer });
  });

  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
  });

  const connect = async (client: { clientId: string; clientSecret: string }, scope: string) => {
    const sdk = new Client({ name: client.clientId, version: '1.0.0' });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(gateway.endpoint), {
        authProvider: new ClientCredentialsProvider({ ...client, scope, expectedIssuer: provider.issuer }),
      }),
    );
    return sdk;
  };

  it('defaults the audience to the endpoint URL and publishes the metadata', async () => {
    expect(
      loadGatewayConfig({ URLS: 'http://127.0.0.1:5000', MCP_AUTH_ISSUER: 'https://as.example.com' }, []).auth,
    ).toEqual({ issuer: 'https://as.example.com', audience: 'http://127.0.0.1:5000/mcp' });
    const response = await fetch(`${gateway.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(await response.json()).toEqual({
      resource: gateway.endpoint,
      authorization_servers: [provider.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'MCP Resource Gateway',
      scopes_supported: ['notes:read', 'notes:write'],
    });
  });

  it('refuses requests without a token with the challenge', async () => {
    const response = await rawPost(gateway.endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(response.status).toBe(401);
    expect(challengeOf(response.headers.get('www-authenticate'))).toEqual({
      scope: SCOPES,
      resource_metadata: `${gateway.origin}/.well-known/oauth-protected-resource/mcp`,
    });
  });

  it('the SDK client with notes:write creates a note and reads it back', async () => {
    const writer = await connect(WRITER, SCOPES);
    try {
      const created = await writer.callTool({ name: 'notes.create', arguments: { title: 'Auth', body: 'works' } });
      const { uri } = created.structuredContent as { uri: string };
      const read = await writer.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ title: 'Auth', body: 'works' });
      expect((await writer.callTool({ name: 'echo', arguments: { text: 'hi' } })).structuredContent).toEqual({
        text: 'hi',
      });
    } finally {
      await writer.close();
    }
  });

  it('notes:read reads notes but may not write them; everything else needs only a valid token', async () => {
    const reader = await connect(READER, 'notes:read');
    try {
      const notes = await reader.readResource({ uri: 'db://notes' });
      expect(Array.isArray(JSON.parse((notes.contents[0] as { text: string }).text))).toBe(true);
      const tools = (await reader.listTools()).tools.map((tool) => tool.name);
      expect(tools).not.toContain('notes.create');
      expect(tools).toEqual(expect.arrayContaining(['echo', 'add']));
      expect(textOf(await reader.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('{"sum":5}');
    } finally {
      await reader.close();
    }
    const token = await provider.token({ resource: gateway.endpoint, scope: 'notes:read', ...READER });
    const session = await authedSession(gateway.endpoint, token);
    const refused = await call(gateway.endpoint, token, session, 'tools/call', {
      name: 'notes.create',
      arguments: { title: 't', body: 'b' },
    });
    expect(refused.status).toBe(403);
    expect(challengeOf(refused.headers.get('www-authenticate'))).toMatchObject({
      error: 'insufficient_scope',
      scope: 'notes:write notes:read',
    });
  });

  it('notes:read sees and gets the notes skill', async () => {
    const token = await provider.token({ resource: gateway.endpoint, scope: 'notes:read', ...READER });
    const session = await authedSession(gateway.endpoint, token);
    const listed = await call(gateway.endpoint, token, session, 'skills/list');
    expect(listed.json.result.skills.map((skill: { uri: string }) => skill.uri)).toEqual(['skill://notes/SKILL.md']);
    const got = await call(gateway.endpoint, token, session, 'skills/get', { uri: 'skill://notes/SKILL.md' });
    expect(got.json.result.skill.frontmatter.name).toBe('notes');
  });

  it('a token without notes scopes sees no notes and may not read or subscribe to them', async () => {
    const token = await provider.token({ resource: gateway.endpoint, ...READER });
    const session = await authedSession(gateway.endpoint, token);
    const resources = await call(gateway.endpoint, token, session, 'resources/list');
    const uris = (resources.json.result.resources as Array<{ uri: string }>).map((resource) => resource.uri);
    expect(uris).toEqual(expect.arrayContaining(['system://info', 'config://gateway']));
    expect(uris.filter((uri) => uri.startsWith('db://'))).toEqual([]);
    // The notes skill teaches tools that need notes:read: not shown, not got, not read.
    expect(uris).not.toContain('skill://notes/SKILL.md');
    expect((await call(gateway.endpoint, token, session, 'skills/list')).json.result.skills).toEqual([]);
    expect((await call(gateway.endpoint, token, session, 'skills/get', { uri: 'skill://notes/SKILL.md' })).status).toBe(
      403,
    );
    expect(
      (await call(gateway.endpoint, token, session, 'resources/read', { uri: 'skill://notes/references/search.md' }))
        .status,
    ).toBe(403);
    expect((await call(gateway.endpoint, token, session, 'resources/read', { uri: 'db://notes' })).status).toBe(403);
    expect((await call(gateway.endpoint, token, session, 'resources/subscribe', { uri: 'db://notes' })).status).toBe(
      403,
    );
    expect(
      (await call(gateway.endpoint, token, session, 'prompts/get', { name: 'summarize-note', arguments: { id: '1' } }))
        .status,
    ).toBe(403);
    const whoCanPing = await rawPost(
      gateway.endpoint,
      { jsonrpc: '2.0', id: 9, method: 'ping' },
      { ...session.headers, ...bearer(token) },
    );
    expect(whoCanPing.status).toBe(200);
  });
});

describe("The Authorization page's example (docs/authorization.md)", () => {
  const run = (script: string, args: string[]) =>
    spawn(
      process.execPath,
      [fileURLToPath(new URL(`../../examples/authorization/${script}`, import.meta.url)), ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  let server: ChildProcess | undefined;
  let gateway: RunningGateway | undefined;

  afterAll(async () => {
    await gateway?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
  });

  it('runs: the dev authorization server, the gateway with MCP_AUTH_ISSUER, the SDK client', async () => {
    const [asPort, mcpPort] = [await freePort(), await freePort()];
    const endpoint = `http://127.0.0.1:${mcpPort}/mcp`;
    server = run('dev-authorization-server.mjs', ['--port', String(asPort), '--resource', endpoint]);
    const started = new MessageLog<string>('authorization server output');
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => started.push(chunk));
    await started.waitFor((line) => line.includes('Authorization server'), 10_000);

    gateway = await startGateway({
      URLS: `http://127.0.0.1:${mcpPort}`,
      MCP_AUTH_ISSUER: `http://127.0.0.1:${asPort}`,
    });
    const client = run('client-credentials-client.mjs', [
      '--endpoint',
      endpoint,
      '--issuer',
      `http://127.0.0.1:${asPort}`,
    ]);
    let output = '';
    client.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    client.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => client.once('exit', resolve));
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('notes.create -> {"id":') });
    expect(output).toContain('db://notes -> [{');
  });
});
