import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { McpHeaderParam } from './tool-header-params.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { DUPLICATE_TOOL, INVALID_TOOL_NAME } from '../mcp.messages.js';
import type { CompiledSchema } from '../schema/schema.types.js';
import { EntryRegistry } from './entry-registry.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import { isValidToolName } from './tool-name.js';

/** A tool ready to serve; its wire descriptor is built once. */
export interface McpToolEntry {
  readonly name: string;
  /** The `tools/list` item. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly input: CompiledSchema;
  readonly output?: CompiledSchema;
  readonly handler: McpHandlerFn;
  /** Scopes a caller's token needs to use it (`@RequireScopes()`, resource-server mode). */
  readonly requiredScopes?: readonly string[];
  /** `Class.method` that declared it, for error messages. */
  readonly source: string;
  /** Its caching hints (modern era), when it overrides the module's. */
  readonly cache?: McpCacheHints;
  /** Arguments mirrored into `Mcp-Param-*` headers, checked against the body over HTTP (modern era). */
  readonly headerParams?: readonly McpHeaderParam[];
  /** What each extension keeps on it, by the extension's name (MCP Apps: its `_meta.ui`; tasks: its `taskSupport`). */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** The tools of this server, by exact (case-sensitive) name. @publicApi */
@Injectable()
export class McpToolRegistry extends EntryRegistry<McpToolEntry> {
  protected keyOf(entry: McpToolEntry): string {
    return entry.name;
  }

  protected duplicate(entry: McpToolEntry, existing: McpToolEntry): string {
    return DUPLICATE_TOOL(entry.name, entry.source, existing.source);
  }

  protected override validate(entry: McpToolEntry): void {
    if (!isValidToolName(entry.name)) throw new McpDefinitionError(INVALID_TOOL_NAME(String(entry.name), entry.source));
  }
}
