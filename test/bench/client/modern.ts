/**
 * Requests of the modern era (MCP 2026-07-28): stateless, each carrying its protocol version
 * and client capabilities in `params._meta`, with the request metadata headers the Streamable
 * HTTP transport checks against the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
 */
import type { LoadRequest } from './load.js';

export const MODERN_VERSION = '2026-07-28';

/** The `_meta` envelope every modern request carries. */
export const modernMeta = (): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** The request metadata headers of a modern request (`name`: the tool, prompt or resource URI). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  return headers;
}

/** A modern `tools/call echo`: the answer must carry its id and text back and say it is complete. */
export function modernEchoRequest(id: number): LoadRequest {
  const text = `t${id}`;
  return {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text }, _meta: modernMeta() },
    }),
    check: (json) =>
      json?.jsonrpc === '2.0' &&
      json.id === id &&
      json.result?.resultType === 'complete' &&
      json.result.isError !== true &&
      json.result.content?.length === 1 &&
      json.result.content[0].type === 'text' &&
      json.result.content[0].text === text,
  };
}

/** The body of a modern `subscriptions/listen` for resource updates of `uris`. */
export const listenBody = (id: number, uris: string[]): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { resourceSubscriptions: uris }, _meta: modernMeta() },
  });
