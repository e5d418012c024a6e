/**
 * The machine's floor: a bare `node:http` server that reads the body, parses the JSON-RPC
 * message and answers with floor-core.ts. Nothing else runs on a request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { endSession, floorStats, handleRpc, notifyUpdated, openStream } from './floor-core.js';

const sessionIdOf = (req: http.IncomingMessage): string | undefined => {
  const value = req.headers['mcp-session-id'];
  return typeof value === 'string' ? value : undefined;
};

const server = http.createServer((req, res) => {
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  if (req.method === 'GET') {
    if (!openStream(sessionIdOf(req), res)) res.writeHead(404).end();
    return;
  }
  if (req.method === 'DELETE') {
    res.writeHead(endSession(sessionIdOf(req)) ? 204 : 404).end();
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let message: unknown;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    const answer = handleRpc(message, sessionIdOf(req));
    if (answer.body === undefined) {
      res.writeHead(answer.status).end();
      return;
    }
    const body = JSON.stringify(answer.body);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    if (answer.sessionId) headers['mcp-session-id'] = answer.sessionId;
    res.writeHead(answer.status, headers).end(body);
  });
});

const { host, port } = listenAddress('http://127.0.0.1:5103');
server.listen(port, host, () => {
  serveBenchIpc(
    { port: (server.address() as AddressInfo).port },
    { notify: notifyUpdated, ...floorStats },
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
});
