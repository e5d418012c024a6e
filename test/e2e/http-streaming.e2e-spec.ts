import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { e2eHttpAdapter } from '../support/http-platform.js';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpModule } from '@app/mcp';
import { StreamingTools } from '../fixtures/streaming.tools.js';
import { openSession, parseSse, rawPost } from '../support/raw-http.js';

@Module({
  imports: [McpModule.forRoot({ serverInfo: { name: 'streaming', version: '1' } })],
  providers: [StreamingTools],
})
class StreamingModule {}

const callCount = (id: number, progressToken?: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'count', arguments: {}, ...(progressToken ? { _meta: { progressToken } } : {}) },
});

describe('POST answers that carry related messages', () => {
  let app: INestApplication;
  let endpoint: string;

  beforeAll(async () => {
    const adapter = e2eHttpAdapter();
    app = adapter
      ? await NestFactory.create(StreamingModule, adapter, { logger: false })
      : await NestFactory.create(StreamingModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    endpoint = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  });

  afterAll(() => app.close());

  it('upgrades to SSE: progress events, then the response, each with a p: event id', async () => {
    const { headers } = await openSession(endpoint);
    const response = await rawPost(endpoint, callCount(5, 'tok-1'), headers);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(response.text);
    const messages = events.map((event) => JSON.parse(event.data));
    expect(messages.slice(0, 3)).toEqual(
      [1, 2, 3].map((progress) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok-1', progress, total: 3, message: `step ${progress}` },
      })),
    );
    expect(messages[3]).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'done' }] } });
    expect(messages).toHaveLength(4);
    const ids = events.map((event) => event.id);
    expect(ids.every((id) => /^p:[A-Za-z0-9_-]+:\d+$/.test(id ?? ''))).toBe(true);
    expect(new Set(ids).size).toBe(4);
  });

  it('answers plain JSON when the handler sends nothing related (no progress token)', async () => {
    const { headers } = await openSession(endpoint);
    const response = await rawPost(endpoint, callCount(6), headers);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.json).toEqual({ jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('answers JSON to a JSON-only client and does not drop the call', async () => {
    const { headers } = await openSession(endpoint);
    const response = await rawPost(endpoint, callCount(7, 'tok-2'), { ...headers, accept: 'application/json' });
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.json.result.content[0].text).toBe('done');
  });

  it('delivers progress to the official SDK client through onprogress', async () => {
    const client = new Client({ name: 'progress-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    const seen: number[] = [];
    const result = await client.callTool({ name: 'count', arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    await client.close();
  });
});
