/**
 * The WebSocket transport at `/ws` (docs/decisions/0008-one-session-model-for-every-transport.md,
 * docs/transports.md): the official SDK client over `WebSocketClientTransport`, then raw `ws` wire
 * checks (subprotocol, Origin/Host on the upgrade, lifecycle gate, framing errors, frame limit,
 * the connection as the session, joining an HTTP session).
 */
import { McpServerStats, ResourceNotificationService } from '@app/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { WsAdapter } from '@nestjs/platform-ws';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { loneSurrogateAnswer, loneSurrogateEcho } from '../support/lone-surrogate.js';
import { GATEWAY_CAPABILITIES, startGateway, type RunningGateway } from '../support/gateway-app.js';
import { openSession, rawRequest } from '../support/raw-http.js';
import { rawSession, toolJson } from '../support/sse-client.js';
import {
  installGlobalWebSocket,
  isUpdatedMessage,
  openWs,
  refusedUpgradeStatus,
  updatedUrisOf,
  wsUrl,
  type RawWsClient,
} from '../support/ws-client.js';

// Node 20 has no global WebSocket and the SDK's WebSocketClientTransport needs one: use `ws`.
installGlobalWebSocket();

const INFO = 'system://info';
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/** Polls (bounded) until `check` holds; each round waits one short timer turn. */
async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface SdkWsClient {
  client: Client;
  updates: string[];
  waitForUpdate(uri: string, timeoutMs?: number): Promise<void>;
}

async function connectSdk(gateway: RunningGateway, name: string): Promise<SdkWsClient> {
  const client = new Client({ name, version: '1.0.0' });
  const updates: string[] = [];
  const waiters = new Set<() => void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
    for (const waiter of [...waiters]) waiter();
  });
  await client.connect(new WebSocketClientTransport(new URL(wsUrl(gateway.origin))));
  return {
    client,
    updates,
    waitForUpdate(uri, timeoutMs = 5_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!updates.includes(uri)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no update for ${uri} within ${timeoutMs} ms (got ${JSON.stringify(updates)})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

const sdkToolJson = (result: unknown): any => {
  const { content, isError } = result as { content: { type: string; text: string }[]; isError?: boolean };
  expect(isError).toBeFalsy();
  return JSON.parse(content[0].text);
};

describe('WebSocket: the official SDK client (strict wire profile)', () => {
  let gateway: RunningGateway;
  const clients: SdkWsClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway({ MCP_WIRE_PROFILE: 'strict' });
  });
  afterEach(async () => {
    await Promise.all(clients.map(({ client }) => client.close().catch(() => undefined)));
    clients.length = 0;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const connect = async (name: string) => {
    const sdk = await connectSdk(gateway, name);
    clients.push(sdk);
    return sdk;
  };

  it('initializes, lists and calls tools, reads resources and gets prompts', async () => {
    const { client } = await connect('ws-sdk');
    expect(client.getServerVersion()?.name).toBe('mcp-resource-gateway');
    // The strict wire profile changes result shapes, not what is declared.
    expect(client.getServerCapabilities()).toEqual(GATEWAY_CAPABILITIES);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'add', 'notes.create', 'notes.update', 'notes.delete']),
    );
    expect(sdkToolJson(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toEqual({ sum: 5 });
    expect(sdkToolJson(await client.callTool({ name: 'echo', arguments: { text: 'over ws' } }))).toEqual({
      text: 'over ws',
    });

    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining([INFO, 'db://notes']));
    const read = await client.readResource({ uri: INFO });
    expect(read.contents[0].uri).toBe(INFO);
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(
      expect.objectContaining({ name: 'mcp-resource-gateway' }),
    );

    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['summarize']));
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'A long text.' } });
    expect(prompt.messages[0].content).toEqual(expect.objectContaining({ type: 'text' }));
    expect((prompt.messages[0].content as { text: string }).text).toContain('A long text.');
  });

  it('subscribeResource() resolves and the update made by another WebSocket client arrives', async () => {
    const reader = await connect('ws-reader');
    const writer = await connect('ws-writer');
    const { id, uri } = sdkToolJson(
      await writer.client.callTool({ name: 'notes.create', arguments: { title: 'ws note', body: 'v1' } }),
    );
    await expect(reader.client.subscribeResource({ uri })).resolves.toEqual({});

    sdkToolJson(await writer.client.callTool({ name: 'notes.update', arguments: { id, body: 'v2' } }));
    await reader.waitForUpdate(uri);
    expect(reader.updates.filter((u) => u === uri)).toHaveLength(1);
    expect(writer.updates).not.toContain(uri);
  });
});

describe('WebSocket: raw wire (ws package)', () => {
  let gateway: RunningGateway;
  let url: string;
  const sockets: RawWsClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
    url = wsUrl(gateway.origin);
  });
  afterEach(async () => {
    await Promise.all(sockets.map((socket) => socket.close().catch(() => undefined)));
    sockets.length = 0;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const open = async (headers: Record<string, string> = {}) => {
    const socket = await openWs(url, { headers });
    sockets.push(socket);
    return socket;
  };

  const createNote = async (socket: RawWsClient, title: string): Promise<{ id: string; uri: string }> =>
    toolJson(await socket.request('tools/call', { name: 'notes.create', arguments: { title, body: 'v1' } }));

  it('echoes the subprotocol mcp', async () => {
    const socket = await open();
    expect(socket.socket.protocol).toBe('mcp');
  });

  it.each([
    ['a foreign Origin', { origin: 'http://evil.example' }],
    ['Origin: null', { origin: 'null' }],
    ['a foreign Host', { host: 'evil.example' }],
  ])('refuses an upgrade with %s with 403', async (_label, headers) => {
    await expect(refusedUpgradeStatus(url, headers)).resolves.toBe(403);
  });

  it('accepts an upgrade from a local Origin', async () => {
    const socket = await open({ origin: gateway.origin });
    await expect(socket.request('ping')).resolves.toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: {} });
  });

  it('answers -32600 "Server not initialized" before initialize, while ping works', async () => {
    const socket = await open();
    const early = await socket.request('tools/list');
    expect(early.error).toEqual(expect.objectContaining({ code: -32600, message: 'Server not initialized' }));
    expect(early.result).toBeUndefined();
    await expect(socket.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));

    await socket.initialize();
    const listed = await socket.request('tools/list');
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'notes.update']),
    );
  });

  it('answers malformed JSON with -32700 and id null, and the socket stays open', async () => {
    const socket = await open();
    await socket.initialize();
    const from = socket.messages.length;
    await socket.sendRaw('{"jsonrpc":"2.0","id":4,');
    const parseError = await socket.waitFor((m) => m?.error !== undefined, 5_000, from);
    expect(parseError).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) });

    expect(socket.isClosed).toBe(false);
    await expect(socket.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
    // The session survived too.
    await expect(socket.request('tools/list')).resolves.toEqual(expect.objectContaining({ result: expect.anything() }));
  });

  it('answers a lone surrogate escape as HTTP does: echoed back, escaped the same way', async () => {
    const socket = await open();
    await socket.initialize();
    const from = socket.messages.length;
    await socket.sendRaw(loneSurrogateEcho(32));
    await expect(socket.waitFor((m) => m?.id === 32, 5_000, from)).resolves.toEqual(loneSurrogateAnswer(32));
  });

  it('closes the socket with 1003 on a binary frame', async () => {
    const socket = await open();
    await socket.sendRaw(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'), { binary: true });
    const closed = await socket.closed;
    expect(closed.code).toBe(1003);
  });

  it('closes a socket that sends a frame over the 4 MiB limit (1009) and keeps serving the others', async () => {
    const bystander = await open();
    await bystander.initialize();
    const offender = await open();

    await offender.sendRaw('x'.repeat(MAX_PAYLOAD_BYTES + 1)).catch(() => undefined);
    const closed = await offender.closed;
    expect(closed.code).toBe(1009);

    await expect(bystander.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
    await expect(bystander.request('tools/list')).resolves.toEqual(
      expect.objectContaining({ result: expect.anything() }),
    );
    const newcomer = await open();
    await expect(newcomer.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
  });

  it('accepts a frame just under the limit as one message', async () => {
    const socket = await open();
    await socket.initialize();
    // A ~3 MiB echo: far over any HTTP default, still under the 4 MiB frame limit.
    const text = 'y'.repeat(3 * 1024 * 1024);
    const answer = await socket.request('tools/call', { name: 'echo', arguments: { text } }, 15_000);
    expect(toolJson(answer)).toEqual({ text });
  });

  it('rejects a second initialize on the same socket with -32600, and the session still works', async () => {
    const socket = await open();
    await socket.initialize();
    const again = await socket.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'again', version: '1.0.0' },
    });
    expect(again.error).toEqual(expect.objectContaining({ code: -32600 }));
    expect(again.result).toBeUndefined();
    await expect(socket.request('tools/list')).resolves.toEqual(expect.objectContaining({ result: expect.anything() }));
  });

  it('answers two pipelined initialize frames with one session: one result, one -32600', async () => {
    const sessions = gateway.app.get(McpServerStats);
    const before = await sessions.openSessions();
    const socket = await open();
    const init = (id: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: id, version: '1.0.0' } },
    });
    // Both frames leave before either answer arrives (a client racing itself).
    await Promise.all([socket.send(init('first')), socket.send(init('second'))]);
    const first = await socket.waitFor((m) => m?.id === 'first');
    const second = await socket.waitFor((m) => m?.id === 'second');
    const answers = [first, second];
    expect(answers.filter((m) => m.result !== undefined)).toHaveLength(1);
    expect(answers.filter((m) => m.error?.code === -32600)).toHaveLength(1);
    // One socket, one session: nothing leaked into the session store.
    expect(await sessions.openSessions()).toBe(before + 1);
    await socket.close();
    await eventually(async () => (await sessions.openSessions()) === before, "the socket's session ended");
  });

  it('delivers notifications/resources/updated to a subscribed socket only', async () => {
    const reader = await open();
    await reader.initialize();
    const writer = await open();
    await writer.initialize();
    const { id, uri } = await createNote(writer, 'raw ws note');

    const subscribed = await reader.request('resources/subscribe', { uri });
    expect(subscribed.result).toEqual({ subscribed: true, uri });
    await reader.request('resources/subscribe', { uri: INFO });
    await writer.request('resources/subscribe', { uri: INFO });

    toolJson(await writer.request('tools/call', { name: 'notes.update', arguments: { id, body: 'v2' } }));
    await reader.waitFor(isUpdatedMessage(uri));
    // Barrier: an update both are subscribed to; anything about the note was sent before it.
    expect(await gateway.app.get(ResourceNotificationService).notifyResourceUpdated(INFO)).toEqual({
      sessions: 2,
      listeners: 0,
    });
    await reader.waitFor(isUpdatedMessage(INFO));
    await writer.waitFor(isUpdatedMessage(INFO));
    expect(updatedUrisOf(reader.messages).filter((u) => u === uri)).toHaveLength(1);
    expect(updatedUrisOf(writer.messages)).not.toContain(uri);
  });

  it('subscribe to an unknown URI answers -32601 (default profile)', async () => {
    const socket = await open();
    await socket.initialize();
    const answer = await socket.request('resources/subscribe', { uri: 'db://does-not-exist' });
    expect(answer.error).toEqual(expect.objectContaining({ code: -32601, message: 'Resource not found' }));
  });

  it('closing the socket ends its session and clears its subscriptions', async () => {
    const socket = await open();
    await socket.initialize();
    const writer = await open();
    await writer.initialize();
    const { uri } = await createNote(writer, 'ws close');
    expect((await socket.request('resources/subscribe', { uri })).result).toEqual({ subscribed: true, uri });

    const notifications = gateway.app.get(ResourceNotificationService);
    const sessions = gateway.app.get(McpServerStats);
    const before = await sessions.openSessions();
    expect(await notifications.notifyResourceUpdated(uri)).toEqual({ sessions: 1, listeners: 0 });

    await socket.close();
    await eventually(
      async () => (await notifications.notifyResourceUpdated(uri)).sessions === 0,
      'subscriptions cleared',
    );
    await eventually(async () => (await sessions.openSessions()) === before - 1, 'session ended');
  });

  it('an upgrade carrying the MCP-Session-Id of an HTTP session joins it', async () => {
    const http = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
    const writer = await open();
    await writer.initialize();
    const { id, uri } = await createNote(writer, 'ws joins http');
    expect((await http.subscribe(uri)).result).toEqual({ subscribed: true, uri });

    const socket = await open({ 'mcp-session-id': http.sessionId });
    // The socket speaks for the HTTP session: no initialize needed.
    const listed = await socket.request('tools/list');
    expect(listed.result?.tools).toEqual(expect.any(Array));
    // And a second initialize on it is refused: the session is already initialized.
    const again = await socket.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'joined', version: '1.0.0' },
    });
    expect(again.error).toEqual(expect.objectContaining({ code: -32600 }));

    // The HTTP session's notifications arrive on the socket.
    toolJson(await writer.request('tools/call', { name: 'notes.update', arguments: { id, body: 'v2' } }));
    await socket.waitFor(isUpdatedMessage(uri));
    // A subscription made over the socket belongs to the same session.
    expect((await socket.request('resources/subscribe', { uri: INFO })).result).toEqual({
      subscribed: true,
      uri: INFO,
    });
    expect(await gateway.app.get(ResourceNotificationService).notifyResourceUpdated(INFO)).toEqual({
      sessions: 1,
      listeners: 0,
    });
    await socket.waitFor(isUpdatedMessage(INFO));

    // Closing a socket that joined only detaches it: the HTTP session lives on.
    await socket.close();
    const ping = await http.request('ping');
    expect(ping.status).toBe(200);
    expect(ping.json).toEqual(expect.objectContaining({ result: {} }));
    expect(await gateway.app.get(ResourceNotificationService).notifyResourceUpdated(uri)).toEqual({
      sessions: 1,
      listeners: 0,
    });
  });

  it('closes the joined socket when its HTTP session is deleted', async () => {
    const http = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
    const socket = await open({ 'mcp-session-id': http.sessionId });
    await expect(socket.request('tools/list')).resolves.toEqual(expect.objectContaining({ result: expect.anything() }));
    const deleted = await rawRequest(gateway.endpoint, 'DELETE', http.headers);
    expect(deleted.status).toBe(204);
    const closed = await socket.closed;
    expect(closed.code).toBe(1001);
  });

  it('closes with 1007 on a text frame that is not UTF-8, and keeps serving others', async () => {
    const bystander = await open();
    const offender = await open();
    await offender.sendRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false }).catch(() => undefined);
    expect((await offender.closed).code).toBe(1007);
    await expect(bystander.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
  });

  it('refuses a JSON-RPC batch on a 2025-11-25 session with -32600 (id null)', async () => {
    const socket = await open();
    await socket.initialize();
    const from = socket.messages.length;
    await socket.sendRaw('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]');
    const answer = await socket.waitFor((m) => m?.error !== undefined || Array.isArray(m), 5_000, from);
    expect(answer).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) });
  });

  it('answers a request with a JSON-RPC error when the payload is JSON but not a request', async () => {
    const socket = await open();
    const from = socket.messages.length;
    await socket.sendRaw('{"jsonrpc":"1.0","id":9,"method":"ping"}');
    const answer = await socket.waitFor((m) => m?.error !== undefined, 5_000, from);
    expect(answer.error.code).toBe(-32600);
    expect(socket.isClosed).toBe(false);
  });
});

describe('WebSocket: SDK client in the default profile', () => {
  let gateway: RunningGateway;
  let sdk: SdkWsClient | undefined;

  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterEach(async () => {
    await sdk?.client.close().catch(() => undefined);
    sdk = undefined;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('subscribes with a raw request and receives the update', async () => {
    sdk = await connectSdk(gateway, 'ws-default');
    const { id, uri } = sdkToolJson(
      await sdk.client.callTool({ name: 'notes.create', arguments: { title: 'default profile', body: 'v1' } }),
    );
    const result = await sdk.client.request(
      { method: 'resources/subscribe', params: { uri } },
      z.object({ subscribed: z.literal(true), uri: z.string() }),
    );
    expect(result).toEqual({ subscribed: true, uri });
    sdkToolJson(await sdk.client.callTool({ name: 'notes.update', arguments: { id, body: 'v2' } }));
    await sdk.waitForUpdate(uri);
  });
});

describe('WebSocket: ping/pong liveness (library fixture, 50 ms keep-alive)', () => {
  let fixture: FixtureApp;
  const sockets: RawWsClient[] = [];

  beforeAll(async () => {
    fixture = await startFixtureApp({
      mcp: { ws: { path: '/ws' }, transport: { keepAliveMs: 50 } },
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
  });
  afterEach(async () => {
    await Promise.all(sockets.map((socket) => socket.close().catch(() => undefined)));
    sockets.length = 0;
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('keeps a peer that answers pings', async () => {
    const socket = await openWs(wsUrl(fixture.origin));
    sockets.push(socket);
    // Three pings answered (ws answers with a pong automatically) and the socket is still open.
    await new Promise<void>((resolve, reject) => {
      let pings = 0;
      const timer = setTimeout(() => reject(new Error(`only ${pings} pings within 5 s`)), 5_000);
      socket.socket.on('ping', () => {
        if (++pings < 3) return;
        clearTimeout(timer);
        resolve();
      });
    });
    expect(socket.isClosed).toBe(false);
    await expect(socket.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
  });

  it('drops a peer that stops answering pings, and ends its session', async () => {
    const sessions = fixture.app.get(McpServerStats);
    const before = await sessions.openSessions();
    const socket = await openWs(wsUrl(fixture.origin), { clientOptions: { autoPong: false } });
    sockets.push(socket);
    await socket.initialize();
    expect(await sessions.openSessions()).toBe(before + 1);
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      socket.closed,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('a dead peer was not dropped within 5 s')), 5_000);
      }),
    ]).finally(() => clearTimeout(timer));
    expect(closed.code).toBe(1006);
    await eventually(async () => (await sessions.openSessions()) === before, "the dead peer's session ended");
  });

  it('applies a configured frame limit', async () => {
    const small = await startFixtureApp({
      mcp: { ws: { path: '/ws', maxPayloadBytes: 1024 } },
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
    try {
      const socket = await openWs(wsUrl(small.origin));
      sockets.push(socket);
      await expect(socket.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
      await socket.sendRaw(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'z'.repeat(1024) } }),
      );
      expect((await socket.closed).code).toBe(1009);
    } finally {
      await small.close();
    }
  });
});
