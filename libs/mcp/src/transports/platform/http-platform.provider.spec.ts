import { describe, expect, it } from '@jest/globals';
import { AbstractHttpAdapter, HttpAdapterHost } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import fastify from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { McpFastifyPlatform } from './fastify.platform.js';
import { choosePlatform } from './http-platform.provider.js';

const hostOf = (adapter: AbstractHttpAdapter): HttpAdapterHost => {
  const host = new HttpAdapterHost();
  host.httpAdapter = adapter;
  return host;
};

/** Reads the whole raw body, as the transport's reader does. */
const readAll = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

describe('choosePlatform', () => {
  it("is Express on Express's adapter, handing the controller's request and response on as they are", () => {
    const platform = choosePlatform(hostOf(new ExpressAdapter()));
    const req = {} as IncomingMessage;
    const res = {} as ServerResponse;
    expect(platform.name).toBe('express');
    expect(platform.request(req)).toBe(req);
    expect(platform.response(res)).toBe(res);
  });

  it("is Fastify on Fastify's adapter: Node's request, and the raw response of a hijacked reply", () => {
    const platform = choosePlatform(hostOf(new FastifyAdapter()));
    const raw = { req: {} as IncomingMessage, res: {} as ServerResponse };
    let hijacked = false;
    expect(platform.name).toBe('fastify');
    expect(platform.request({ raw: raw.req })).toBe(raw.req);
    expect(platform.response({ raw: raw.res, hijack: () => (hijacked = true) })).toBe(raw.res);
    expect(hijacked).toBe(true);
  });

  it('refuses any other adapter at startup, naming both platforms', () => {
    const other = new ExpressAdapter();
    other.getType = () => 'koa';
    const refusal = (() => {
      try {
        choosePlatform(hostOf(other));
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(McpDefinitionError);
    expect((refusal as Error).message).toMatch(/@nestjs\/platform-express or @nestjs\/platform-fastify.*'koa'/);
  });
});

describe('McpFastifyPlatform.readBodiesFirst', () => {
  /** A Fastify app whose POST /mcp route reports what Fastify parsed and the transport read. */
  async function appWith(reader: Parameters<McpFastifyPlatform['readBodiesFirst']>[1]) {
    const app = fastify({ bodyLimit: 16 });
    new McpFastifyPlatform(app).readBodiesFirst(new Map([['/mcp', 'streamable-http']]), reader);
    const seen: Array<{ body: unknown; contentType: unknown; rawContentType: unknown }> = [];
    const route = (request: { body: unknown; headers: Record<string, unknown>; raw: IncomingMessage }) => {
      seen.push({
        body: request.body,
        contentType: request.headers['content-type'],
        rawContentType: request.raw.headers['content-type'],
      });
      return { routed: true };
    };
    app.post('/mcp', route);
    app.put('/mcp', route);
    app.post('/other', route);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    /** Over the wire: Fastify's `inject()` needs CommonJS packages Jest cannot load here. */
    const send = async (method: string, path: string, body: string, contentType: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        body,
        headers: { 'content-type': contentType },
      });
      return { statusCode: response.status, text: await response.text() };
    };
    return { app, seen, send };
  }

  it("reads the body before Fastify's limit and parsers, which then see none", async () => {
    const bodies: string[] = [];
    const { app, seen, send } = await appWith((req, _res, next, transport) => {
      expect(transport).toBe('streamable-http');
      void readAll(req).then((body) => {
        bodies.push(body);
        next();
      });
    });
    // Over Fastify's 16-byte limit, and a type it has no parser for: Fastify alone would say 413 or 415.
    const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const answer = await send('POST', '/mcp', payload, 'text/xml');
    expect(answer.statusCode).toBe(200);
    expect(bodies).toEqual([payload]);
    expect(seen).toEqual([{ body: undefined, contentType: undefined, rawContentType: 'text/xml' }]);
    await app.close();
  });

  it("hides the body of another method on the MCP path, and leaves other paths to Fastify's parsers", async () => {
    const { app, seen, send } = await appWith(() => {
      throw new Error('the reader runs for POSTs to the MCP paths only');
    });
    const put = await send('PUT', '/mcp', '<x/>', 'text/xml');
    expect(put.statusCode).toBe(200);
    const other = await send('POST', '/other', '<x/>', 'text/xml');
    expect(other.statusCode).toBe(415);
    expect(seen).toHaveLength(1);
    await app.close();
  });

  it('leaves a request the reader refused to the reader: Fastify writes nothing and runs no route', async () => {
    const { app, seen, send } = await appWith((_req, res, _next, _transport, refused) => {
      res.writeHead(413, { 'content-type': 'application/json' }).end('{"refused":true}');
      refused();
    });
    const answer = await send('POST', '/mcp?x=1', '{}', 'application/json');
    expect(answer.statusCode).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({ refused: true });
    expect(seen).toEqual([]);
    await app.close();
  });
});
