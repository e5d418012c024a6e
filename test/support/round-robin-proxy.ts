/**
 * A load balancer for tests (http-proxy-3 does the proxying): each request of a session goes
 * to a different instance than that session's previous request, so no request is served
 * where the one before it was; requests without a session take the next instance in turn. The
 * proxy records which instance served what, for assertions.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxyServer } from 'http-proxy-3';

export interface ProxiedRequest {
  readonly method: string;
  readonly sessionId?: string;
  /** Index of the instance that served it. */
  readonly instance: number;
}

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Every request, in arrival order. */
  readonly served: ProxiedRequest[];
  /** Points instance `index` at a new origin (a restarted process). */
  retarget(index: number, origin: string): void;
  close(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1 in front of `targets` (origins such as `http://127.0.0.1:5001`),
 * on `port` (a free one by default: a test that must name the endpoint beforehand, as an
 * authorization server's resource, picks it first).
 */
export async function startRoundRobinProxy(origins: readonly string[], port = 0): Promise<RoundRobinProxy> {
  const targets = [...origins];
  const proxy = createProxyServer({ ws: true, xfwd: false });
  const served: ProxiedRequest[] = [];
  const lastBySession = new Map<string, number>();
  let next = 0;

  const pick = (req: IncomingMessage): number => {
    const header = req.headers['mcp-session-id'];
    const sessionId = typeof header === 'string' ? header : undefined;
    let instance: number;
    if (sessionId === undefined) instance = next++ % targets.length;
    else {
      const last = lastBySession.get(sessionId);
      instance = last === undefined ? next++ % targets.length : (last + 1) % targets.length;
      lastBySession.set(sessionId, instance);
    }
    served.push({ method: req.method ?? 'GET', sessionId, instance });
    return instance;
  };

  // An SSE answer's headers go out at once (http-proxy-3 sends them with the first body chunk,
  // and a quiet stream has none for a while); after the proxy's own header passes have run.
  proxy.on('proxyRes', (proxyRes, _req, res) => {
    // An instance that dies mid-answer cuts the client's connection too, as a load balancer does.
    proxyRes.once('close', () => {
      if (!proxyRes.complete) res.destroy();
    });
    if (!String(proxyRes.headers['content-type']).startsWith('text/event-stream')) return;
    queueMicrotask(() => {
      if (!res.headersSent) res.flushHeaders();
    });
  });
  // An instance that is down answers 502, as a real load balancer would.
  proxy.on('error', (_error, _req, res) => {
    if (res && 'writeHead' in res && !res.headersSent) res.writeHead(502).end();
    else if (res) res.destroy();
  });

  const server: Server = createServer((req, res) => proxy.web(req, res, { target: targets[pick(req)] }));
  server.on('upgrade', (req, socket, head) => proxy.ws(req, socket, head, { target: targets[pick(req)] }));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${bound}`,
    served,
    retarget: (index, origin) => {
      targets[index] = origin;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        proxy.close();
      }),
  };
}
