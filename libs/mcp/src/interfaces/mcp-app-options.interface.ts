import type { McpRequestContext } from '../context/mcp-request-context.js';
import type { McpResourceMetadata } from './mcp-resource-options.interface.js';

/**
 * The HTML of an app: inline, a file read once at startup (a missing file fails startup), or a
 * function called for every read, with the provider as `this`.
 * @publicApi
 */
export type McpAppHtml =
  | string
  | { file: string | URL }
  // `this` is the provider: a function may declare it (`function (this: BoardApp, ctx) {...}`).
  | ((this: any, ctx: McpRequestContext) => string | Promise<string>);

/**
 * Options of `@McpApp()`: a UI resource (MCP Apps), its HTML and, in `ui`, how hosts render it
 * (its `_meta.ui`: CSP, permissions, domain, border). The MIME type is MCP Apps'
 * (`text/html;profile=mcp-app`).
 * @publicApi
 */
export interface McpAppOptions extends Omit<McpResourceMetadata, 'mimeType'> {
  /** The resource's URI, in the `ui://` scheme MCP Apps reserves (`ui://notes/board`). */
  uri: string;
  html: McpAppHtml;
}
