import { afterEach, describe, expect, it } from '@jest/globals';
import express, { type Request, type Response } from 'express';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpExpressPlatform, type ExpressInstance } from './express.platform.js';
import { releaseWhenHeld } from './http-platform.js';

/** What Express leaves on a routed request, as the tests inspect it. */
type Routed = Request & { _parsedUrl?: unknown; next?: unknown };

describe('McpExpressPlatform.releaseHeld, through releaseWhenHeld', () => {
  let server: Server | undefined;
  const sockets: Array<{ destroy(): void }> = [];

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    sockets.length = 0;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /**
   * An Express app whose GET /mcp/:kind either holds its response open as a stream (`stream`) or
   * answers and ends it (`answer`), then runs `releaseWhenHeld`; a middleware placed first reads
   * what a logger would read once the response finishes.
   */
  async function appWithRoute() {
    const app = express();
    const platform = new McpExpressPlatform(app as unknown as ExpressInstance);
    const released: Routed[] = [];
    const atFinish: unknown[] = [];
    app.use((req: Request, res: Response, next: () => void) => {
      res.locals.requestId = 'r-1';
      res.on('finish', () =>
        atFinish.push({
          route: req.route?.path,
          params: { ...req.params },
          originalUrl: req.originalUrl,
          locals: res.locals.requestId,
        }),
      );
      next();
    });
    app.get('/mcp/:kind', (req: Request, res: Response) => {
      const answered = (async () => {
        if (req.params.kind === 'stream') res.writeHead(200).flushHeaders();
        else res.writeHead(204).end();
      })();
      void releaseWhenHeld(platform, answered, req, res, res).then(() => released.push(req as Routed));
    });
    server = app.listen(0, '127.0.0.1');
    server.on('connection', (socket) => sockets.push(socket));
    await new Promise((resolve) => server!.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    return { port, released, atFinish };
  }

  const get = (port: number, path: string) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path, agent: false }, resolve).on('error', reject);
    });

  const settled = async (released: Routed[], count: number) => {
    while (released.length < count) await new Promise((resolve) => setImmediate(resolve));
  };

  it("drops the router's continuation and the parsed-URL cache of a request held open by a stream", async () => {
    const { port, released } = await appWithRoute();
    const response = await get(port, '/mcp/stream?x=1');
    expect(response.statusCode).toBe(200);
    await settled(released, 1);
    const [req] = released;
    expect(req.next).toBeUndefined();
    expect(req._parsedUrl).toBeUndefined();
    // Kept: what a middleware may still read when the stream ends.
    expect(req.route?.path).toBe('/mcp/:kind');
    expect(req.params).toEqual({ kind: 'stream' });
    expect(req.originalUrl).toBe('/mcp/stream?x=1');
    expect(req.res?.locals.requestId).toBe('r-1');
    expect(Object.getPrototypeOf(req)).not.toBe(http.IncomingMessage.prototype);
    response.destroy();
  });

  it('leaves a request whose response ended alone', async () => {
    const { port, released, atFinish } = await appWithRoute();
    const response = await get(port, '/mcp/answer');
    expect(response.statusCode).toBe(204);
    await settled(released, 1);
    expect(typeof released[0].next).toBe('function');
    expect(atFinish).toEqual([
      { route: '/mcp/:kind', params: { kind: 'answer' }, originalUrl: '/mcp/answer', locals: 'r-1' },
    ]);
  });
});
