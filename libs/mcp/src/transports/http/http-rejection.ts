import type { ServerResponse } from 'node:http';
import { errorResponse, type JsonRpcId } from '../../protocol/json-rpc.js';

/**
 * Answers an HTTP-level rejection with a JSON-RPC error body, so that MCP clients always get
 * JSON-RPC, never a framework's own error format.
 */
export function rejectHttp(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  detail: string,
  options: { id?: JsonRpcId | null; headers?: Record<string, string> } = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorResponse(options.id ?? null, { code, message, data: { detail } }));
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...options.headers,
  });
  res.end(body);
}
