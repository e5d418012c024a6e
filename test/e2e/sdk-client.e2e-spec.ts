/**
 * The official TypeScript SDK client (`Client` + `StreamableHTTPClientTransport`) against the
 * reference gateway: what a real MCP client sees, end to end.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_CAPABILITIES, startGateway, type RunningGateway } from '../support/gateway-app.js';
import { rawPost, rawRequest } from '../support/raw-http.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The project's README: the gateway serves it as a `file://` resource. */
const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));
const README_URI = pathToFileURL(README_PATH).href;

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function connectClient(endpoint: string, name = 'sdk-e2e'): Promise<Connected> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  await client.connect(transport);
  return { client, transport };
}

const textOf = (result: { contents: unknown[] }, index = 0): string => {
  const content = result.contents[index] as { text?: unknown };
  expect(typeof content.text).toBe('string');
  return content.text as string;
};

/** The McpError a promise rejects with (fails the test if it resolves). */
async function mcpErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected an McpError, got a result: ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

const SECRET_KEY = /secret|password|passwd|token|api[-_]?key|credential|private/i;

function expectNoSecrets(value: unknown): void {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        expect(key).not.toMatch(SECRET_KEY);
        walk(child);
      }
    }
  };
  walk(value);
}

describe('SDK client against the default gateway (sessions on, no version override)', () => {
  let gateway: RunningGateway;
  let connected: Connected;

  beforeAll(async () => {
    gateway = await startGateway();
    connected = await connectClient(gateway.endpoint);
  });

  afterAll(async () => {
    await connected?.client.close().catch(() => undefined);
    await gateway?.close();
  });

  it('reports server info, capabilities and the negotiated version', () => {
    const { client, transport } = connected;
    expect(client.getServerVersion()).toEqual(
      expect.objectContaining({ name: 'mcp-resource-gateway', version: '0.1.0' }),
    );
    expect(client.getServerCapabilities()).toEqual(GATEWAY_CAPABILITIES);
    expect(transport.sessionId).toMatch(/^[\x21-\x7E]{32,}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(client.getInstructions()).toEqual(expect.stringContaining('echo'));
  });

  it('names every tool it lists in its instructions (a model reads them to pick a tool)', async () => {
    const { tools } = await connected.client.listTools();
    const instructions = connected.client.getInstructions() ?? '';
    const words = new Set(instructions.split(/[^\w.-]+/).map((word) => word.replace(/\.+$/, '')));
    const unnamed = tools.map((tool) => tool.name).filter((name) => !words.has(name));
    expect(unnamed).toEqual([]);
  });

  it('lists the tools with their input schemas and the output schema of add', async () => {
    const { tools } = await connected.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // Other demo tools may exist; these two are the gateway's own.
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['add', 'echo']));

    const echo = byName.get('echo')!;
    expect(echo.inputSchema.type).toBe('object');
    expect(echo.inputSchema.properties).toHaveProperty('text');
    expect(echo.inputSchema.required).toEqual(['text']);

    const add = byName.get('add')!;
    expect(add.inputSchema.type).toBe('object');
    expect(add.inputSchema.properties).toEqual(
      expect.objectContaining({
        a: expect.objectContaining({ type: 'number' }),
        b: expect.objectContaining({ type: 'number' }),
      }),
    );
    expect([...(add.inputSchema.required ?? [])].sort()).toEqual(['a', 'b']);
    expect(add.outputSchema).toBeDefined();
    expect(add.outputSchema!.type).toBe('object');
    expect(add.outputSchema!.properties).toEqual(
      expect.objectContaining({ sum: expect.objectContaining({ type: 'number' }) }),
    );
    expect(add.outputSchema!.required).toEqual(['sum']);
  });

  it('calls echo and gets the exact text back', async () => {
    const text = 'héllo, wörld € 🚀 "quoted" \\ back\nslash';
    const result = await connected.client.callTool({ name: 'echo', arguments: { text } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ text });
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0].type).toBe('text');
    expect(JSON.parse(content[0].text)).toEqual({ text });
  });

  it('calls add: structuredContent.sum, and the text content is that JSON', async () => {
    const result = await connected.client.callTool({ name: 'add', arguments: { a: 2.5, b: -7 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ sum: -4.5 });
    const content = result.content as { type: string; text: string }[];
    expect(content).toEqual([{ type: 'text', text: JSON.stringify({ sum: -4.5 }) }]);
  });

  it('lists all four resources, each with a name and a MIME type', async () => {
    const { resources, nextCursor } = await connected.client.listResources();
    expect(nextCursor).toBeUndefined();
    const byUri = new Map(resources.map((resource) => [resource.uri, resource]));
    expect([...byUri.keys()]).toEqual(
      expect.arrayContaining(['config://gateway', README_URI, 'system://info', 'system://metrics']),
    );
    for (const resource of resources) {
      expect(typeof resource.name).toBe('string');
      expect(resource.name.length).toBeGreaterThan(0);
    }
    expect(byUri.get('system://info')!.mimeType).toBe('application/json');
    expect(byUri.get('system://metrics')!.mimeType).toBe('application/json');
    expect(byUri.get('config://gateway')!.mimeType).toBe('application/json');
    expect(byUri.get(README_URI)!.mimeType).toBe('text/markdown');
    expect(README_URI).toMatch(/^file:\/\/.*README\.md$/);
  });

  it('reads system://info', async () => {
    const result = await connected.client.readResource({ uri: 'system://info' });
    expect(result.contents).toHaveLength(1);
    expect(result.contents[0]).toEqual(expect.objectContaining({ uri: 'system://info', mimeType: 'application/json' }));
    const info = JSON.parse(textOf(result));
    expect(info).toEqual({
      name: 'mcp-resource-gateway',
      version: '0.1.0',
      protocolVersion: '2025-11-25',
      uptimeSeconds: expect.any(Number),
    });
    expect(Number.isInteger(info.uptimeSeconds)).toBe(true);
    expect(info.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('reads system://metrics, live: requestsServed grows between two reads', async () => {
    const first = await connected.client.readResource({ uri: 'system://metrics' });
    expect(first.contents[0]).toEqual(
      expect.objectContaining({ uri: 'system://metrics', mimeType: 'application/json' }),
    );
    const before = JSON.parse(textOf(first));
    expect(before).toEqual({
      rss: expect.any(Number),
      heapUsed: expect.any(Number),
      openSessions: expect.any(Number),
      requestsServed: expect.any(Number),
      exportsRunning: 0,
    });
    expect(before.rss).toBeGreaterThan(0);
    expect(before.heapUsed).toBeGreaterThan(0);
    expect(before.openSessions).toBeGreaterThanOrEqual(1);

    await connected.client.ping();
    const after = JSON.parse(textOf(await connected.client.readResource({ uri: 'system://metrics' })));
    expect(after.requestsServed).toBeGreaterThan(before.requestsServed);
    expect(after.openSessions).toBeGreaterThanOrEqual(1);
  });

  it('reads config://gateway: no secrets, and it reflects the environment', async () => {
    const result = await connected.client.readResource({ uri: 'config://gateway' });
    expect(result.contents[0]).toEqual(
      expect.objectContaining({ uri: 'config://gateway', mimeType: 'application/json' }),
    );
    const config = JSON.parse(textOf(result));
    expectNoSecrets(config);
    expect(config).toEqual(
      expect.objectContaining({ endpoint: '/mcp', sessions: true, protocolVersion: null, wireProfile: 'gateway' }),
    );
    expect(config.url).toMatch(/^http:\/\/127\.0\.0\.1(:\d+)?$/);
  });

  it('reads the README resource as markdown', async () => {
    const result = await connected.client.readResource({ uri: README_URI });
    expect(result.contents).toHaveLength(1);
    expect(result.contents[0]).toEqual(expect.objectContaining({ uri: README_URI, mimeType: 'text/markdown' }));
    const text = textOf(result);
    expect(text.startsWith('#')).toBe(true);
    expect(text).toEqual(readFileSync(README_PATH, 'utf8'));
  });

  it('lists the summarize prompt with its arguments', async () => {
    const { prompts } = await connected.client.listPrompts();
    const summarize = prompts.find((prompt) => prompt.name === 'summarize');
    expect(summarize).toBeDefined();
    const args = summarize!.arguments ?? [];
    expect(args).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'text', required: true }),
        expect.objectContaining({ name: 'style' }),
      ]),
    );
    expect(args.find((arg) => arg.name === 'style')!.required).not.toBe(true);
  });

  it('gets summarize: brief and detailed texts differ and both carry the text', async () => {
    const input = 'The quick brown fox jumps over the lazy dog.';
    const brief = await connected.client.getPrompt({ name: 'summarize', arguments: { text: input, style: 'brief' } });
    const detailed = await connected.client.getPrompt({
      name: 'summarize',
      arguments: { text: input, style: 'detailed' },
    });
    const byDefault = await connected.client.getPrompt({ name: 'summarize', arguments: { text: input } });
    const textOfPrompt = (result: typeof brief): string => {
      expect(result.messages).toHaveLength(1);
      expect(result.messages[0].role).toBe('user');
      const content = result.messages[0].content as { type: string; text: string };
      expect(content.type).toBe('text');
      return content.text;
    };
    const briefText = textOfPrompt(brief);
    const detailedText = textOfPrompt(detailed);
    expect(briefText).toContain(input);
    expect(detailedText).toContain(input);
    expect(briefText).not.toEqual(detailedText);
    expect(textOfPrompt(byDefault)).toEqual(briefText);
  });

  it('getPrompt without the required text → McpError -32602', async () => {
    const error = await mcpErrorOf(connected.client.getPrompt({ name: 'summarize', arguments: {} }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.code).toBe(-32602);
    expect(JSON.stringify(error.data ?? error.message)).toContain('text');
  });

  it("getPrompt with style 'long' → McpError -32602", async () => {
    const error = await mcpErrorOf(
      connected.client.getPrompt({ name: 'summarize', arguments: { text: 'x', style: 'long' } }),
    );
    expect(error.code).toBe(-32602);
    expect(JSON.stringify(error.data ?? error.message)).toContain('style');
  });

  it('terminateSession ends the session: its id is 404 over raw HTTP afterwards', async () => {
    // A client of its own, so the other tests keep their session.
    const own = await connectClient(gateway.endpoint, 'sdk-e2e-terminate');
    try {
      const sessionId = own.transport.sessionId!;
      expect(sessionId).toBeTruthy();
      const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      const alive = await rawPost(gateway.endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers);
      expect(alive.status).toBe(200);

      await own.transport.terminateSession();
      expect(own.transport.sessionId).toBeUndefined();

      const post = await rawPost(gateway.endpoint, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
      expect(post.status).toBe(404);
      expect(post.json?.error).toBeDefined();
      const get = await rawRequest(gateway.endpoint, 'GET', { ...headers, accept: 'text/event-stream' });
      expect(get.status).toBe(404);
    } finally {
      await own.client.close().catch(() => undefined);
    }
  });
});

describe('SDK client against a stateless gateway (MCP_STATELESS=1)', () => {
  let gateway: RunningGateway;
  let connected: Connected;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_STATELESS: '1' });
    connected = await connectClient(gateway.endpoint);
  });

  afterAll(async () => {
    await connected?.client.close().catch(() => undefined);
    await gateway?.close();
  });

  it('connects without a session id and negotiates 2025-11-25', () => {
    expect(connected.transport.sessionId).toBeUndefined();
    expect(connected.transport.protocolVersion).toBe('2025-11-25');
    expect(connected.client.getServerVersion()?.name).toBe('mcp-resource-gateway');
  });

  it('lists and calls tools, reads resources and gets prompts', async () => {
    const { tools } = await connected.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['add', 'echo']));
    const sum = await connected.client.callTool({ name: 'add', arguments: { a: 40, b: 2 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const echo = await connected.client.callTool({ name: 'echo', arguments: { text: 'stateless' } });
    expect(echo.structuredContent).toEqual({ text: 'stateless' });

    const { resources } = await connected.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(
      expect.arrayContaining(['config://gateway', README_URI, 'system://info', 'system://metrics']),
    );
    const config = JSON.parse(textOf(await connected.client.readResource({ uri: 'config://gateway' })));
    expectNoSecrets(config);
    expect(config.sessions).toBe(false);

    const prompt = await connected.client.getPrompt({ name: 'summarize', arguments: { text: 'abc' } });
    expect(prompt.messages).toHaveLength(1);
  });

  it('terminateSession is harmless without a session', async () => {
    await expect(connected.transport.terminateSession()).resolves.toBeUndefined();
    const echo = await connected.client.callTool({ name: 'echo', arguments: { text: 'still here' } });
    expect(echo.structuredContent).toEqual({ text: 'still here' });
  });
});

describe('SDK client against a gateway with MCP_PROTOCOL_VERSION=2025-06-18', () => {
  let gateway: RunningGateway;
  let connected: Connected;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_PROTOCOL_VERSION: '2025-06-18' });
    connected = await connectClient(gateway.endpoint);
  });

  afterAll(async () => {
    await connected?.client.close().catch(() => undefined);
    await gateway?.close();
  });

  it('negotiates the configured version although the client asked for 2025-11-25', () => {
    expect(connected.transport.protocolVersion).toBe('2025-06-18');
    expect(connected.transport.sessionId).toMatch(/^[\x21-\x7E]{32,}$/);
  });

  it('works normally, and system://info and config://gateway report the override', async () => {
    const sum = await connected.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(sum.structuredContent).toEqual({ sum: 3 });
    const info = JSON.parse(textOf(await connected.client.readResource({ uri: 'system://info' })));
    expect(info.protocolVersion).toBe('2025-06-18');
    const config = JSON.parse(textOf(await connected.client.readResource({ uri: 'config://gateway' })));
    expect(config.protocolVersion).toBe('2025-06-18');
    expect(config.sessions).toBe(true);
  });

  it('invalid tool arguments are -32602 on a 2025-06-18 session', async () => {
    const error = await mcpErrorOf(connected.client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } }));
    expect(error.code).toBe(-32602);
  });
});
