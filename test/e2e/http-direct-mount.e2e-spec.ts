import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import type { Server } from 'node:http';
import net, { type Socket } from 'node:net';
import { BasicTools } from '../fixtures/basic.tools.js';
import { FixtureState } from '../fixtures/fixture-state.js';
import { GuardedTools } from '../fixtures/guarded.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { DenyGuard, InspectingGuard, UnauthorizedGuard } from '../fixtures/test.guard.js';
import { initializeRequest, openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';

/** A plain route of the application, which the direct mount must leave alone. */
@Controller('health')
class HealthController {
  @Get()
  health() {
    return { ok: true };
  }
}

@Module({ controllers: [HealthController] })
class HealthModule {}

describe("the direct mount (http: { mount: 'direct' })", () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [BasicTools, GuardedTools, FixtureState, InspectingGuard, DenyGuard, UnauthorizedGuard],
      imports: [HealthModule],
      mcp: { http: { path: '/mcp', mount: 'direct' }, limits: { maxBodyBytes: 1024 } },
    });
  });

  afterAll(() => fixture.close());

  it('serves the official SDK client', async () => {
    const { client } = await fixture.connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['alpha', 'open']));
    expect(await client.callTool({ name: 'alpha', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'a' }] });
  });

  it('keeps guards on MCP handlers', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const denied = await rawPost(
      fixture.endpoint,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'denied' } },
      headers,
    );
    expect(denied.json.error.code).toBe(-32003);
  });

  it('answers the wire checks itself: parse errors, body limit, origin, sessions, methods', async () => {
    expect((await rawPost(fixture.endpoint, '{"jsonrpc":')).json.error.code).toBe(-32700);
    const tooLarge = await rawPost(
      fixture.endpoint,
      JSON.stringify({ ...initializeRequest(), pad: 'x'.repeat(2_000) }),
    );
    expect(tooLarge.status).toBe(413);
    expect((await rawPost(fixture.endpoint, initializeRequest(), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawPost(fixture.endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);
    expect((await rawRequest(fixture.endpoint, 'PUT')).status).toBe(405);

    const { headers } = await openSession(fixture.endpoint);
    const stream = await openSseClient(fixture.endpoint, { headers });
    expect(stream.status).toBe(200);
    stream.close();
    expect((await rawRequest(fixture.endpoint, 'DELETE', headers)).status).toBe(204);
    expect((await rawPost(fixture.endpoint, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers)).status).toBe(404);
  });

  it('answers a JSON tools/call in one socket write with its Content-Length, on a kept-alive connection, in both eras', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const server = fixture.app.getHttpServer() as Server;
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = net.connect(Number(new URL(fixture.endpoint).port), '127.0.0.1');
    const serverSide = await accepted;
    // Every write the server's socket makes (a corked run of writes leaves as one `_writev`).
    let writes = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = (serverSide as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
      (serverSide as unknown as Record<string, unknown>)[method] = function (this: Socket, ...args: unknown[]) {
        writes += 1;
        return original.apply(this, args);
      };
    }
    const received = readAnswers(client);
    const ask = async (body: object, extra: Record<string, string>) => {
      writes = 0;
      const text = JSON.stringify(body);
      const head = Object.entries({
        host: new URL(fixture.endpoint).host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': String(Buffer.byteLength(text)),
        ...extra,
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      client.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${text}`);
      const answer = await received.next();
      // The answer's end may be written after the bytes the client already read: let it land.
      await new Promise((resolve) => setImmediate(resolve));
      return { ...answer, writes };
    };

    const legacy = await ask(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'alpha', arguments: {} } },
      {
        'mcp-session-id': headers['mcp-session-id'],
        'mcp-protocol-version': '2025-11-25',
      },
    );
    const modern = await ask(
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: {
          name: 'alpha',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'alpha' },
    );
    client.destroy();

    for (const [answer, id] of [
      [legacy, 7],
      [modern, 8],
    ] as const) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
      expect(answer.headers['transfer-encoding']).toBeUndefined();
      expect(answer.headers.connection).not.toBe('close');
      expect(JSON.parse(answer.body).id).toBe(id);
      expect(answer.writes).toBe(1);
    }
    // Both answers came on the one connection, which is still open for a third.
    expect(serverSide.destroyed).toBe(false);
  });

  it('leaves every other route to the application', async () => {
    const response = await fetch(`${fixture.origin}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});

interface WireAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers of a keep-alive connection, one after another (each with a Content-Length body). */
function readAnswers(socket: Socket): { next: () => Promise<WireAnswer> } {
  let buffered = Buffer.alloc(0);
  let waiting: ((answer: WireAnswer) => void) | undefined;
  const parse = () => {
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0 || !waiting) return;
    const [statusLine, ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (buffered.length < end + 4 + length) return;
    const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    buffered = buffered.subarray(end + 4 + length);
    const resolve = waiting;
    waiting = undefined;
    resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    parse();
  });
  return {
    next: () =>
      new Promise<WireAnswer>((resolve) => {
        waiting = resolve;
        parse();
      }),
  };
}
