import type { McpPrincipal } from '../model/mcp-principal.js';

/**
 * The principal authenticated for a transport request, kept beside it (never on it: the request
 * object belongs to the framework). Connection transports (WebSocket, legacy SSE) authenticate
 * once per HTTP request, the upgrade or the stream's GET, and dispatch many messages over it.
 */
const principals = new WeakMap<object, McpPrincipal>();

/** Records the principal of a request (once: a connection's owner never changes). */
export function bindRequestPrincipal(request: object, principal: McpPrincipal | undefined): void {
  if (principal) principals.set(request, principal);
  else principals.delete(request);
}

/** The principal recorded for a request; `undefined` when auth is off or the transport is local. */
export function requestPrincipal(request: unknown): McpPrincipal | undefined {
  return typeof request === 'object' && request !== null ? principals.get(request) : undefined;
}
