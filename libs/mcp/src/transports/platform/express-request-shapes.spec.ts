import { afterEach, describe, expect, it } from '@jest/globals';
import express, { type Request, type Response } from 'express';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExpressRequestShapes } from './express-request-shapes.js';

describe('ExpressRequestShapes', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /**
   * An Express app with the shapes installed for /mcp: its route learns each request once
   * answered, and records what a request held as own properties when Express handed it over
   * and what reading them gave.
   */
  async function appWithShapes() {
    const app = express();
    const shapes = new ExpressRequestShapes();
    const seen: Array<{ ownAtEntry: Array<string | symbol>; statusCode: number; locals: unknown; query: unknown }> = [];
    const ahead: Array<{ reqKeys: Array<string | symbol>; statusCode: unknown }> = [];
    app.use((req: Request & { user?: string }, _res: Response, next: () => void) => {
      req.user = 'alice';
      next();
    });
    app.all('/:path', (req: Request, res: Response) => {
      seen.push({
        ownAtEntry: Reflect.ownKeys(req),
        statusCode: res.statusCode,
        locals: { ...res.locals },
        query: req.query,
      });
      res.status(200).json({ user: (req as Request & { user?: string }).user });
      shapes.learn(req, res);
    });
    server = http.createServer(app);
    // Runs after the shapes, before Express: what the shapes added.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/mcp')) ahead.push({ reqKeys: Reflect.ownKeys(req), statusCode: res.statusCode });
    });
    shapes.install(server, new Set(['/mcp']));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).json();
    return { get, seen, ahead };
  }

  it('adds, ahead of Express, the own properties a routed request of the method had, with the values reading them gave', async () => {
    const { get, seen, ahead } = await appWithShapes();
    expect(await get('/mcp?a=1')).toEqual({ user: 'alice' });
    expect(await get('/mcp?a=2')).toEqual({ user: 'alice' });
    expect(await get('/other')).toEqual({ user: 'alice' });
    const [first, second, other] = seen;
    // The second request to /mcp had the first one's properties before Express ran.
    expect(ahead[1].reqKeys).toEqual(expect.arrayContaining(['user', 'next', 'params', 'route', 'originalUrl']));
    expect(ahead[0].reqKeys).not.toContain('user');
    // Node's default, still there to read before the response is written.
    expect(ahead[1].statusCode).toBe(200);
    // What the route reads is the same, and Express's own getters are not hidden.
    expect(second.statusCode).toBe(first.statusCode);
    expect(second.locals).toEqual(first.locals);
    expect(second.query).toEqual({ a: '2' });
    expect(second.ownAtEntry).not.toContain('query');
    // Other paths are left to Express as they were.
    expect(other.ownAtEntry).toEqual(first.ownAtEntry);
  });
});
