import type { IncomingMessage } from 'node:http';
import { principalKey, type McpPrincipal } from '../model/mcp-principal.js';

/**
 * Who a per-caller limit counts (tool-call rate, sessions): the principal in resource-server
 * mode, which no client can change, else the remote address of the HTTP request; `undefined`
 * for stdio (one local caller).
 */
export function callerKeyOf(auth: McpPrincipal | undefined, request: unknown): string | undefined {
  if (auth) return `p:${principalKey(auth)}`;
  const address = (request as IncomingMessage | undefined)?.socket?.remoteAddress;
  return address ? `a:${address}` : undefined;
}
