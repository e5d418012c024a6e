import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from './mcp-apps.constants.js';

/**
 * True when the client renders MCP Apps: its capabilities (from `initialize` in the legacy era,
 * from the request's `_meta` in the modern one) declare the extension with MCP Apps' MIME type
 * among its `mimeTypes`, which the extension requires. A request that carries no capabilities
 * (a stateless legacy request has no session to hold them) renders none.
 */
export function rendersApps(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const extensions = capabilities?.extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const settings = (extensions as Record<string, unknown>)[MCP_APPS_EXTENSION];
  const mimeTypes = (settings as { mimeTypes?: unknown } | null | undefined)?.mimeTypes;
  return Array.isArray(mimeTypes) && mimeTypes.includes(MCP_APP_MIME_TYPE);
}
