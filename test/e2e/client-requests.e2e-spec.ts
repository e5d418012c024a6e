import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { e2eHttpAdapter } from '../support/http-platform.js';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpModule } from '@app/mcp';
import { AskingTools } from '../fixtures/asking.tools.js';
import { parseSse, rawPost } from '../support/raw-http.js';

@Module({
  imports: [McpModule.forRoot({ serverInfo: { name: 'asking', version: '1' } })],
  providers: [AskingTools],
})
class AskingModule {}

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0].text;

describe('server→client requests from inside a handler', () => {
  let app: INestApplication;
  let endpoint: string;

  beforeAll(async () => {
    const adapter = e2eHttpAdapter();
    app = adapter
      ? await NestFactory.create(AskingModule, adapter, { logger: false })
      : await NestFactory.create(AskingModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    endpoint = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  });

  afterAll(() => app.close());

  const connect = async (capabilities: Record<string, unknown>) => {
    const client = new Client({ name: 'asked', version: '1' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    return client;
  };

  it('samples through the client model and uses its answer', async () => {
    const client = await connect({ sampling: {} });
    const seen: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      seen.push(request.params);
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'leaves fall' } };
    });
    const result = await client.callTool({ name: 'ask_model', arguments: {} });
    expect(textOf(result)).toBe('model test-model said: leaves fall');
    expect(seen).toEqual([expect.objectContaining({ maxTokens: 50 })]);
    await client.close();
  });

  it('elicits in form mode; accept, decline and cancel reach the handler', async () => {
    for (const [action, expected] of [
      ['accept', 'hello Ada'],
      ['decline', 'user chose decline'],
      ['cancel', 'user chose cancel'],
    ] as const) {
      const client = await connect({ elicitation: {} });
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        expect(request.params.message).toBe('What is your name?');
        return action === 'accept' ? { action, content: { name: 'Ada' } } : { action };
      });
      expect(textOf(await client.callTool({ name: 'ask_user', arguments: {} }))).toBe(expected);
      await client.close();
    }
  });

  it('elicits in URL mode only when the client declared it, with a generated elicitationId', async () => {
    const formOnly = await connect({ elicitation: {} });
    const refused = await formOnly.callTool({ name: 'ask_url', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("'elicitation.url'");
    await formOnly.close();

    const withUrl = await connect({ elicitation: { form: {}, url: {} } });
    let params: Record<string, unknown> | undefined;
    withUrl.setRequestHandler(ElicitRequestSchema, (request) => {
      params = request.params;
      return { action: 'accept' };
    });
    expect(textOf(await withUrl.callTool({ name: 'ask_url', arguments: {} }))).toBe('url elicitation: accept');
    expect(params).toEqual(expect.objectContaining({ mode: 'url', url: 'https://example.com/login' }));
    expect(params?.elicitationId).toEqual(expect.any(String));
    await withUrl.close();
  });

  it('lists roots when the client declared them', async () => {
    const client = await connect({ roots: { listChanged: true } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: 'file:///a', name: 'A' }, { uri: 'file:///b' }],
    }));
    expect(textOf(await client.callTool({ name: 'ask_roots', arguments: {} }))).toBe('file:///a,file:///b');
    await client.close();
  });

  it.each([
    ['ask_model', "'sampling'"],
    ['ask_user', "'elicitation'"],
    ['ask_roots', "'roots'"],
  ])('%s without the capability is a clear tool error, and nothing is sent', async (tool, capability) => {
    const client = await connect({});
    const result = await client.callTool({ name: tool, arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(capability);
    await client.close();
  });

  it('times out when the client never answers, and withdraws the request', async () => {
    const { headers } = await openSessionWith(endpoint, { sampling: {} });
    const response = await rawPost(
      endpoint,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask_quick', arguments: {} } },
      headers,
    );
    const messages = parseSse(response.text).map((event) => JSON.parse(event.data));
    const request = messages.find((m) => m.method === 'sampling/createMessage');
    expect(request).toBeDefined();
    expect(messages).toContainEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: request.id, reason: 'Timed out' },
    });
    const answer = messages.find((m) => m.id === 1);
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0].text).toContain('within 150 ms');
  });

  it("ignores an answer posted by another session; the asking session's own answer is taken", async () => {
    const asker = await openSessionWith(endpoint, { sampling: {} });
    const other = await openSessionWith(endpoint, { sampling: {} });
    const call = fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...asker.headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'ask_model', arguments: {} },
      }),
    });
    const response = await call;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const next = async (predicate: (m: any) => boolean) => {
      for (let i = 0; i < 100; i++) {
        const found = parseSse(buffer)
          .map((event) => JSON.parse(event.data))
          .find(predicate);
        if (found) return found;
        const chunk = await reader.read();
        if (chunk.done) throw new Error('stream ended');
        buffer += decoder.decode(chunk.value);
      }
      throw new Error('not found');
    };
    const request = await next((m) => m.method === 'sampling/createMessage');
    const forged = {
      jsonrpc: '2.0',
      id: request.id,
      result: { role: 'assistant', model: 'forged', content: { type: 'text', text: 'x' } },
    };
    expect((await rawPost(endpoint, forged, other.headers)).status).toBe(202);
    const genuine = {
      jsonrpc: '2.0',
      id: request.id,
      result: { role: 'assistant', model: 'genuine', content: { type: 'text', text: 'y' } },
    };
    expect((await rawPost(endpoint, genuine, asker.headers)).status).toBe(202);
    const answer = await next((m) => m.id === 9);
    expect(answer.result.content[0].text).toBe('model genuine said: y');
    await reader.cancel();
  });
});

/** Opens a raw session that declares the given client capabilities. */
async function openSessionWith(endpoint: string, capabilities: Record<string, unknown>) {
  const response = await rawPost(endpoint, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
  });
  const sessionId = response.headers.get('mcp-session-id')!;
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  await rawPost(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return { sessionId, headers };
}
