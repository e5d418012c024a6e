import type { IncomingHttpHeaders } from 'node:http';
import { WebSocket } from 'ws';
import { MCP_SUBPROTOCOL } from '../ws-client.js';

export interface RefusedUpgrade {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Attempts a WebSocket upgrade that is expected to be refused and resolves with the whole
 * refusal (status, headers, body); rejects if the handshake succeeds.
 */
export function refusedUpgrade(
  url: string,
  headers: Record<string, string>,
  timeoutMs = 5_000,
): Promise<RefusedUpgrade> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, [MCP_SUBPROTOCOL], { headers });
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`WebSocket ${url}: no answer to the upgrade within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        socket.terminate();
      });
    });
    socket.once('open', () => {
      clearTimeout(timer);
      socket.terminate();
      reject(new Error(`WebSocket ${url}: the upgrade was accepted (expected a refusal)`));
    });
  });
}
