/**
 * The stdio transport (docs/decisions/0008-one-session-model-for-every-transport.md, docs/transports.md):
 * the BUILT gateway started with `--stdio`, driven by the official SDK `StdioClientTransport`
 * and as a raw child process. stdout must carry JSON-RPC only (one message per line); every
 * log line goes to stderr; bad and over-long lines get an error and the loop continues; the
 * implicit session has working subscriptions; stdin EOF exits with code 0.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LONE_SURROGATE_ON_THE_WIRE, loneSurrogateAnswer, loneSurrogateEcho } from '../support/lone-surrogate.js';
import {
  buildGatewayIfNeeded,
  GATEWAY_ENTRY,
  NPM_START_STDIO,
  PROJECT_ROOT,
  spawnStdioGateway,
  type StdioGateway,
} from '../support/stdio-client.js';

/** The default bound of one message (`maxBodyBytes`), which a stdio line shares. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** Each test boots a child process (about 1 s); the bound is generous for loaded machines. */
const TEST_TIMEOUT_MS = 30_000;
/** The default (gateway) wire profile's subscribe result (docs/decisions/0001-wire-profiles.md). */
const SubscribedSchema = z.object({ subscribed: z.literal(true), uri: z.string() });

const toolJson = (response: any): any => {
  const result = response?.result;
  if (!result || result.isError) throw new Error(`expected a successful tool result, got ${JSON.stringify(response)}`);
  return JSON.parse(result.content[0].text);
};

/** A JSON-RPC 2.0 message: a request, a notification, or a response (result or error). */
function isJsonRpcMessage(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return false;
  if (typeof message.method === 'string') return true;
  const hasId = typeof message.id === 'string' || typeof message.id === 'number' || message.id === null;
  return hasId && 'result' in message !== 'error' in message;
}

/** Asserts that every stdout line so far parses as one JSON-RPC 2.0 message. */
function expectOnlyJsonRpcOnStdout(proc: StdioGateway): void {
  const offending = proc.lines.filter((line) => {
    try {
      return !isJsonRpcMessage(JSON.parse(line));
    } catch {
      return true;
    }
  });
  expect(offending).toEqual([]);
}

beforeAll(async () => {
  // `nest build` only when dist/src/main.js is missing or older than the sources.
  await buildGatewayIfNeeded();
}, 240_000);

describe('stdio: the official SDK client (StdioClientTransport)', () => {
  let client: Client | undefined;
  let transport: StdioClientTransport | undefined;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
    client = undefined;
    transport = undefined;
  }, 15_000);

  it(
    'initializes, lists and calls tools, reads resources and gets prompts',
    async () => {
      transport = new StdioClientTransport({
        command: process.execPath,
        args: [GATEWAY_ENTRY, '--stdio'],
        cwd: PROJECT_ROOT,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const errors: Error[] = [];
      client = new Client({ name: 'stdio-sdk', version: '1.0.0' });
      client.onerror = (error) => errors.push(error);
      const updates: string[] = [];
      let onUpdate: (() => void) | undefined;
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updates.push(notification.params.uri);
        onUpdate?.();
      });

      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('mcp-resource-gateway');

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['echo', 'add', 'notes.create', 'notes.update', 'notes.delete']),
      );
      const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      expect(sum.structuredContent ?? JSON.parse((sum.content as { text: string }[])[0].text)).toEqual({ sum: 42 });

      const read = await client.readResource({ uri: 'system://info' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(
        expect.objectContaining({ name: 'mcp-resource-gateway' }),
      );
      const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'stdio text' } });
      expect((prompt.messages[0].content as { text: string }).text).toContain('stdio text');

      // Subscriptions over the implicit session, with a raw request (default wire profile).
      const created = await client.callTool({ name: 'notes.create', arguments: { title: 'sdk stdio', body: 'v1' } });
      const { id, uri } = JSON.parse((created.content as { text: string }[])[0].text);
      await expect(
        client.request({ method: 'resources/subscribe', params: { uri } }, SubscribedSchema),
      ).resolves.toEqual({ subscribed: true, uri });
      const arrived = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no update for ${uri} (got ${JSON.stringify(updates)})`)),
          5_000,
        );
        onUpdate = () => {
          if (updates.includes(uri)) {
            clearTimeout(timer);
            resolve();
          }
        };
      });
      await client.callTool({ name: 'notes.update', arguments: { id, body: 'v2' } });
      await arrived;

      // Nothing but JSON-RPC reached the SDK's stdout parser; the logs went to stderr.
      expect(errors).toEqual([]);
      expect(stderr).toContain('Starting Nest application');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('stdio: raw child process', () => {
  let proc: StdioGateway | undefined;

  afterEach(async () => {
    await proc?.stop();
    proc = undefined;
  }, 15_000);

  const start = () => (proc = spawnStdioGateway());

  it(
    'answers -32600 "Server not initialized" before initialize, while ping works',
    async () => {
      const gateway = start();
      const ping = await gateway.request('ping', undefined, 15_000);
      expect(ping).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: {} });
      const early = await gateway.request('tools/list');
      expect(early.error).toEqual(expect.objectContaining({ code: -32600, message: 'Server not initialized' }));
      await gateway.initialize();
      const listed = await gateway.request('tools/list');
      expect(listed.result.tools.length).toBeGreaterThan(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers a second initialize with -32600, also when both are written at once',
    async () => {
      const gateway = start();
      const init = (id: string) => ({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: id, version: '1.0.0' } },
      });
      // Two lines in one write: the implicit session must be created once (a client racing itself).
      await gateway.write(`${JSON.stringify(init('first'))}\n${JSON.stringify(init('second'))}\n`);
      const answers = [
        await gateway.waitFor((m) => m?.id === 'first', 15_000),
        await gateway.waitFor((m) => m?.id === 'second'),
      ];
      expect(answers.filter((m) => m.result !== undefined)).toHaveLength(1);
      expect(answers.filter((m) => m.error?.code === -32600)).toHaveLength(1);
      await gateway.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const third = await gateway.request('initialize', init('third').params);
      expect(third.error).toEqual(expect.objectContaining({ code: -32600 }));
      await expect(gateway.request('tools/list')).resolves.toEqual(
        expect.objectContaining({ result: expect.anything() }),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'writes nothing but JSON-RPC lines to stdout, and the Nest bootstrap log to stderr',
    async () => {
      const gateway = start();
      await gateway.initialize();
      await gateway.request('tools/list');
      await gateway.request('resources/list');
      toolJson(await gateway.request('tools/call', { name: 'echo', arguments: { text: 'line\nbreak "quoted"' } }));
      toolJson(await gateway.request('tools/call', { name: 'notes.create', arguments: { title: 't', body: 'b' } }));
      expect((await gateway.request('tools/call', { name: 'no-such-tool', arguments: {} })).error?.code).toBe(-32602);
      expect((await gateway.request('no/such/method')).error?.code).toBe(-32601);
      expect((await gateway.request('resources/read', { uri: 'db://nope' })).error?.code).toBe(-32002);
      const before = gateway.messages.length;
      await gateway.write('this is not json\n');
      await gateway.waitFor((m) => m?.error?.code === -32700, 5_000, before);
      await gateway.request('ping');
      await gateway.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } });
      await gateway.request('ping');

      const exit = await gateway.stop();
      expect(exit.code).toBe(0);
      expect(gateway.lines.length).toBeGreaterThanOrEqual(10);
      expectOnlyJsonRpcOnStdout(gateway);
      expect(gateway.lines.join('\n')).not.toContain('Starting Nest application');
      expect(gateway.lines.join('\n')).not.toContain('[Nest]');
      // Nest's bootstrap log (first line on) went to stderr.
      expect(gateway.stderr).toContain('Starting Nest application');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers a lone surrogate escape as HTTP does: echoed back, escaped the same way on its line',
    async () => {
      const gateway = start();
      await gateway.initialize();
      const before = gateway.messages.length;
      await gateway.write(`${loneSurrogateEcho(32)}\n`);
      await expect(gateway.waitFor((m) => m?.id === 32, 5_000, before)).resolves.toEqual(loneSurrogateAnswer(32));
      expect(gateway.lines.find((line) => line.includes('"id":32'))).toContain(LONE_SURROGATE_ON_THE_WIRE);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers a bad line with -32700 (id null) and keeps reading',
    async () => {
      const gateway = start();
      await gateway.initialize();
      const before = gateway.messages.length;
      await gateway.write('{"jsonrpc":"2.0","id":4,\n');
      const parseError = await gateway.waitFor((m) => m?.error !== undefined, 5_000, before);
      expect(parseError).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) });

      const next = await gateway.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } });
      expect(toolJson(next)).toEqual({ sum: 2 });
      // A CRLF line is fine too.
      const id = 'crlf';
      await gateway.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\r\n`);
      await expect(gateway.waitFor((m) => m?.id === id)).resolves.toEqual({ jsonrpc: '2.0', id, result: {} });
      expectOnlyJsonRpcOnStdout(gateway);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'rejects a line over the 4 MiB default with one error, then answers the next request',
    async () => {
      const gateway = start();
      await gateway.initialize();
      const before = gateway.messages.length;
      // 4 MiB + 1 bytes of filler, written in 1 MiB chunks, then the newline.
      const chunk = Buffer.alloc(1024 * 1024, 0x78);
      for (let written = 0; written < MAX_LINE_BYTES + 1;) {
        const size = Math.min(chunk.length, MAX_LINE_BYTES + 1 - written);
        await gateway.write(chunk.subarray(0, size));
        written += size;
      }
      await gateway.write('\n');
      const tooLong = await gateway.waitFor((m) => m?.error !== undefined, 10_000, before);
      expect(tooLong.id).toBeNull();
      expect([-32700, -32600]).toContain(tooLong.error.code);

      const ping = await gateway.request('ping', undefined, 10_000);
      expect(ping.result).toEqual({});
      // Exactly one error for the long line: nothing else came before the ping's answer.
      const between = gateway.messages.slice(before);
      expect(between.filter((m) => m?.error !== undefined)).toHaveLength(1);
      expect(between).toEqual([tooLong, ping]);
      expect(gateway.hasExited).toBe(false);
      toolJson(await gateway.request('tools/call', { name: 'echo', arguments: { text: 'still alive' } }));
      expectOnlyJsonRpcOnStdout(gateway);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'subscribes over stdio and writes notifications/resources/updated to stdout',
    async () => {
      const gateway = start();
      await gateway.initialize();
      const { id, uri } = toolJson(
        await gateway.request('tools/call', { name: 'notes.create', arguments: { title: 'stdio note', body: 'v1' } }),
      );
      const subscribed = await gateway.request('resources/subscribe', { uri });
      expect(subscribed.result).toEqual({ subscribed: true, uri });

      const from = gateway.messages.length;
      toolJson(await gateway.request('tools/call', { name: 'notes.update', arguments: { id, body: 'v2' } }));
      const update = await gateway.waitFor((m) => m?.method === 'notifications/resources/updated', 5_000, from);
      expect(update).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });

      // After unsubscribe: nothing. Barrier: db://notes (subscribed) is notified by notes.create.
      expect((await gateway.request('resources/unsubscribe', { uri })).result).toEqual({ unsubscribed: true, uri });
      await gateway.request('resources/subscribe', { uri: 'db://notes' });
      const after = gateway.messages.length;
      toolJson(await gateway.request('tools/call', { name: 'notes.update', arguments: { id, body: 'v3' } }));
      toolJson(
        await gateway.request('tools/call', { name: 'notes.create', arguments: { title: 'barrier', body: '' } }),
      );
      await gateway.waitFor(
        (m) => m?.method === 'notifications/resources/updated' && m.params?.uri === 'db://notes',
        5_000,
        after,
      );
      const noteUpdates = gateway.messages
        .slice(after)
        .filter((m) => m?.method === 'notifications/resources/updated' && m.params?.uri === uri);
      expect(noteUpdates).toEqual([]);
      expectOnlyJsonRpcOnStdout(gateway);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers subscribe to an unknown URI with -32601',
    async () => {
      const gateway = start();
      await gateway.initialize();
      const answer = await gateway.request('resources/subscribe', { uri: 'db://does-not-exist' });
      expect(answer.error).toEqual(expect.objectContaining({ code: -32601, message: 'Resource not found' }));
    },
    TEST_TIMEOUT_MS,
  );

  it('npm run --silent start:stdio keeps stdout for JSON-RPC too, and exits 0 on EOF', async () => {
    const gateway = (proc = spawnStdioGateway({}, NPM_START_STDIO));
    // `prestart:stdio` rebuilds first when the sources changed since the last build.
    await gateway.initialize('2025-11-25', 110_000);
    toolJson(await gateway.request('tools/call', { name: 'echo', arguments: { text: 'via npm' } }));
    const exit = await gateway.stop(10_000);
    expect(exit.code).toBe(0);
    expect(gateway.lines.length).toBe(2);
    expectOnlyJsonRpcOnStdout(gateway);
    expect(gateway.stderr).toContain('Starting Nest application');
  }, 120_000);

  it(
    'exits with code 0 on stdin EOF',
    async () => {
      const gateway = start();
      await gateway.initialize();
      gateway.endInput();
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        gateway.exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the process did not exit within 5 s of stdin EOF')), 5_000);
        }),
      ]).finally(() => clearTimeout(timer));
      expect(exit).toEqual({ code: 0, signal: null });
      expectOnlyJsonRpcOnStdout(gateway);
    },
    TEST_TIMEOUT_MS,
  );
});
