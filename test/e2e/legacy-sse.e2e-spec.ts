/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05; docs/transports.md): `GET /sse` whose first event is `endpoint`, `POST /messages?sessionId=…` answering
 * 202 with the response on the stream, 404 for unknown ids, Origin/Host checks, and the
 * session ending with the stream. First with the official SDK `SSEClientTransport`, then raw.
 */
import { ResourceNotificationService } from '@app/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { mcpPostHeaders, wireOversizedPost } from '../support/http-wire.js';
import { openLegacySse } from '../support/legacy-sse-client.js';
import { rawPost } from '../support/raw-http.js';
import { isUpdated, openSseClient, toolJson, type SseClient } from '../support/sse-client.js';

/** Polls (bounded) until `check` holds; each round waits one short timer turn. */
async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let nextId = 1;

/** The shared raw legacy client, its requests numbered here. */
async function openLegacy(origin: string) {
  const client = await openLegacySse(origin);
  return {
    ...client,
    /** POSTs a request (expects 202) and resolves with its response from the stream. */
    request: (method: string, params?: Record<string, unknown>) => client.request(nextId++, method, params),
  };
}

describe('legacy HTTP+SSE: the official SDK client (SSEClientTransport)', () => {
  let gateway: RunningGateway;
  let client: Client | undefined;

  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterEach(async () => {
    await client?.close().catch(() => undefined);
    client = undefined;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('connects, lists and calls tools, reads a resource and receives an update', async () => {
    client = new Client({ name: 'legacy-sdk', version: '1.0.0' });
    const updates: string[] = [];
    let onUpdate: (() => void) | undefined;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
      onUpdate?.();
    });
    await client.connect(new SSEClientTransport(new URL(`${gateway.origin}/sse`)));
    expect(client.getServerVersion()?.name).toBe('mcp-resource-gateway');

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'add', 'notes.create', 'notes.update', 'notes.delete']),
    );
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'legacy' } });
    expect(JSON.parse((echoed.content as { text: string }[])[0].text)).toEqual({ text: 'legacy' });
    const read = await client.readResource({ uri: 'system://info' });
    expect(read.contents[0].uri).toBe('system://info');

    const created = await client.callTool({ name: 'notes.create', arguments: { title: 'legacy sdk', body: 'v1' } });
    const { id, uri } = JSON.parse((created.content as { text: string }[])[0].text);
    await client.request(
      { method: 'resources/subscribe', params: { uri } },
      // The default wire profile answers { subscribed, uri } (docs/decisions/0001-wire-profiles.md).
      z.object({ subscribed: z.literal(true), uri: z.string() }),
    );
    const arrived = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no update for ${uri} (got ${JSON.stringify(updates)})`)), 5_000);
      onUpdate = () => {
        if (!updates.includes(uri)) return;
        clearTimeout(timer);
        resolve();
      };
    });
    await client.callTool({ name: 'notes.update', arguments: { id, body: 'v2' } });
    await arrived;
  });
});

describe('legacy HTTP+SSE: raw wire', () => {
  let gateway: RunningGateway;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterEach(() => {
    for (const stream of streams) stream.close();
    streams.length = 0;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const open = async () => {
    const session = await openLegacy(gateway.origin);
    streams.push(session.stream);
    return session;
  };

  it('sends the endpoint event first, naming /messages?sessionId=…', async () => {
    const stream = await openSseClient(`${gateway.origin}/sse`);
    streams.push(stream);
    expect(stream.status).toBe(200);
    expect(String(stream.headers['content-type'])).toMatch(/^text\/event-stream/);
    const first = await stream.waitFor(() => true);
    expect(first.index).toBe(0);
    expect(first.event).toBe('endpoint');
    expect(first.data).toMatch(/^\/messages\?sessionId=[\x21-\x7e]{16,}$/);
    const id = new URL(first.data, gateway.origin).searchParams.get('sessionId');
    expect(id).toBeTruthy();
  });

  it('answers a POST with 202 and sends the response on the stream as event: message', async () => {
    const session = await open();
    const from = session.stream.events.length;
    const response = await session.post({
      jsonrpc: '2.0',
      id: 'init-1',
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(response.status).toBe(202);
    expect(response.json?.result).toBeUndefined();
    const event = await session.stream.waitFor((e) => e.json?.id === 'init-1', 5_000, from);
    expect(event.event).toBe('message');
    expect(event.json.result).toEqual(expect.objectContaining({ protocolVersion: expect.any(String) }));

    expect((await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const listed = await session.request('tools/list');
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'notes.update']),
    );
    expect(toolJson(await session.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))).toEqual({
      sum: 3,
    });
  });

  it('answers -32600 before initialize (ping works), and 400 -32700 for bad JSON', async () => {
    const session = await open();
    expect((await session.request('tools/list')).error).toEqual(expect.objectContaining({ code: -32600 }));
    expect((await session.request('ping')).result).toEqual({});
    await session.initialize();
    const bad = await session.post('{"jsonrpc":"2.0","id":4,');
    // Malformed JSON is refused at the HTTP layer, as on /mcp (docs/errors.md): 400 with -32700.
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) });
    // The stream and the session survive it.
    expect(session.stream.isEnded).toBe(false);
    expect((await session.request('ping')).result).toEqual({});
  });

  it('creates one session per stream: a second initialize gets -32600, also when both are posted at once', async () => {
    const session = await open();
    const init = (id: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: id, version: '1.0.0' } },
    });
    const posted = await Promise.all([session.post(init('first')), session.post(init('second'))]);
    expect(posted.map((response) => response.status)).toEqual([202, 202]);
    const answers = [
      (await session.stream.waitFor((e) => e.json?.id === 'first')).json,
      (await session.stream.waitFor((e) => e.json?.id === 'second')).json,
    ];
    expect(answers.filter((m) => m.result !== undefined)).toHaveLength(1);
    expect(answers.filter((m) => m.error?.code === -32600)).toHaveLength(1);
    const third = await session.request('initialize', init('third').params);
    expect(third.error).toEqual(expect.objectContaining({ code: -32600 }));
  });

  it('delivers notifications/resources/updated on the stream of a subscribed session', async () => {
    const session = await open();
    await session.initialize();
    const { id, uri } = toolJson(
      await session.request('tools/call', { name: 'notes.create', arguments: { title: 'legacy raw', body: 'v1' } }),
    );
    expect((await session.request('resources/subscribe', { uri })).result).toEqual({ subscribed: true, uri });
    const from = session.stream.events.length;
    toolJson(await session.request('tools/call', { name: 'notes.update', arguments: { id, body: 'v2' } }));
    const event = await session.stream.waitFor(isUpdated(uri), 5_000, from);
    expect(event.event).toBe('message');
  });

  it('refuses a body over 4 MiB with 413 and keeps the session', async () => {
    const session = await open();
    await session.initialize();
    const response = await wireOversizedPost(session.endpoint, 4 * 1024 * 1024 + 1, mcpPostHeaders(), {
      declareLength: true,
    });
    expect(response.status).toBe(413);
    expect(response.json?.error?.code).toEqual(expect.any(Number));
    expect((await session.request('ping')).result).toEqual({});
  });

  it('answers 404 for an unknown or missing sessionId', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const unknown = await rawPost(`${gateway.origin}/messages?sessionId=does-not-exist-0123456789`, ping);
    expect(unknown.status).toBe(404);
    const missing = await rawPost(`${gateway.origin}/messages`, ping);
    expect(missing.status).toBe(404);
  });

  it('refuses a foreign Origin with 403 on GET /sse and on POST /messages', async () => {
    const refused = await openSseClient(`${gateway.origin}/sse`, { headers: { origin: 'http://evil.example' } });
    streams.push(refused);
    expect(refused.status).toBe(403);
    await refused.ended;
    expect(refused.events).toEqual([]);

    const nullOrigin = await openSseClient(`${gateway.origin}/sse`, { headers: { origin: 'null' } });
    streams.push(nullOrigin);
    expect(nullOrigin.status).toBe(403);

    const session = await open();
    await session.initialize();
    const from = session.stream.events.length;
    const foreign = await session.post(
      { jsonrpc: '2.0', id: 'evil', method: 'tools/list' },
      { origin: 'http://evil.example' },
    );
    expect(foreign.status).toBe(403);
    // The refused message was not handled: a later request's answer arrives, and 'evil' never did.
    await session.request('ping');
    expect(session.stream.events.slice(from).some((e) => e.json?.id === 'evil')).toBe(false);
  });

  it('refuses a foreign Host with 403 on GET /sse', async () => {
    const refused = await openSseClient(`${gateway.origin}/sse`, { headers: { host: 'evil.example' } });
    streams.push(refused);
    expect(refused.status).toBe(403);
  });

  it('ends the session when the stream closes: its endpoint answers 404 and subscriptions are gone', async () => {
    const session = await open();
    await session.initialize();
    const { uri } = toolJson(
      await session.request('tools/call', { name: 'notes.create', arguments: { title: 'legacy close', body: '' } }),
    );
    await session.request('resources/subscribe', { uri });
    const notifications = gateway.app.get(ResourceNotificationService);
    expect(await notifications.notifyResourceUpdated(uri)).toEqual({ sessions: 1, listeners: 0 });

    session.stream.close();
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 'after-close', method: 'ping' });
    await eventually(async () => (await session.post(ping)).status === 404, 'POST to a closed stream answers 404');
    await eventually(
      async () => (await notifications.notifyResourceUpdated(uri)).sessions === 0,
      'subscriptions cleared',
    );
  });
});

describe('legacy HTTP+SSE on a modern-only gateway (MCP_PROTOCOL_ERAS=modern)', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_PROTOCOL_ERAS: 'modern' });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('refuses GET /sse with 400 -32022 naming the modern versions: no 2025-era session behind a fallback', async () => {
    const refused = await fetch(`${gateway.origin}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: number; data: { supported: string[] } } };
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toEqual(['2026-07-28']);
  });

  it('leaves the SDK v1 SSE client no connection to fall back to', async () => {
    const client = new Client({ name: 'legacy-sdk', version: '1.0.0' });
    await expect(client.connect(new SSEClientTransport(new URL(`${gateway.origin}/sse`)))).rejects.toThrow();
    await client.close().catch(() => undefined);
  });
});
