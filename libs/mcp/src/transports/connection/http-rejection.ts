import type { ServerResponse } from 'node:http';
import type { McpException } from '../../errors/mcp.exception.js';
import { errorResponse, type JsonRpcId } from '../../model/json-rpc.js';

/**
 * Answers a rejected HTTP request with the exception's JSON-RPC error body, status and headers,
 * so that MCP clients always get JSON-RPC, never a framework's own error format. The body comes
 * from the exception (errors/mcp-transport.exceptions.ts): transports never build one by hand.
 */
export function rejectHttp(
  res: ServerResponse,
  exception: McpException,
  id: JsonRpcId | null = null,
  options: {
    /** `false` writes the whole answer but leaves the response for the caller to end. @default true */
    end?: boolean;
  } = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorResponse(id, exception.toJsonRpcError()));
  res.writeHead(exception.httpStatus ?? 500, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...exception.httpHeaders,
  });
  if (options.end === false) res.write(body);
  else res.end(body);
}
