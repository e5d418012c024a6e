import type { McpSchemaInput } from '../schema/schema.types.js';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { McpIcon } from './mcp-icon.interface.js';
import type { McpUiToolMeta } from './mcp-ui-meta.interface.js';
import type { McpTaskSupport } from '../model/task-support.js';

/** Behaviour hints of a tool (clients treat them as untrusted). @publicApi */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Options of `@McpTool()`. @publicApi */
export interface McpToolOptions {
  /** Unique tool name: 1 to 128 characters of `A-Z a-z 0-9 _ - .` (checked at startup). */
  name: string;
  title?: string;
  description: string;
  /** Input model: a class-validator DTO class, a zod 4 schema or a JSON Schema. Default: no arguments. */
  input?: McpSchemaInput;
  /** Output model. When set, the result is also sent as `structuredContent`. */
  output?: McpSchemaInput;
  annotations?: McpToolAnnotations;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
  /** Caching hints of `tools/list` pages holding this tool (modern era); the module's by default. */
  cache?: McpCacheHints;
  /**
   * Arguments the client mirrors into `Mcp-Param-<Name>` HTTP headers (MCP 2026-07-28
   * `x-mcp-header`), by property path (`'region'`, `'target.region'`): the header name part is the
   * value. Only string, integer and boolean properties reachable through `properties` alone; the
   * server checks each header against the body.
   */
  headerParams?: Record<string, string>;
  /**
   * MCP Apps: the UI resource (`ui://...`) hosts render this tool's results with, and who may
   * call it (`visibility`, model and app by default); sent as `_meta.ui`. A host that did not
   * declare the extension sees the tool without it, and never sees an app-only tool. See
   * docs/apps.md.
   */
  ui?: McpUiToolMeta;
  /**
   * Whether calls may run as tasks the client polls (long work: an export, a build, a crawl).
   * The same handler runs either way; `ctx.task` is set when it runs as one. See `McpTaskSupport`
   * and docs/tasks.md.
   * @default 'forbidden'
   */
  taskSupport?: McpTaskSupport;
}
