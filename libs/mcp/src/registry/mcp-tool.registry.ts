import { Injectable } from '@nestjs/common';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { DUPLICATE_TOOL, INVALID_TOOL_NAME } from '../mcp.messages.js';
import type { CompiledSchema } from '../schema/schema.types.js';
import { EntryRegistry } from './entry-registry.js';
import type { McpHandlerFn } from './mcp-handler.types.js';
import { isValidToolName } from './tool-name.js';

/** A tool ready to serve; its wire descriptor is built once. */
export interface McpToolEntry {
  readonly name: string;
  /** The `tools/list` item. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly input: CompiledSchema;
  readonly output?: CompiledSchema;
  readonly handler: McpHandlerFn;
  /** `Class.method` that declared it, for error messages. */
  readonly source: string;
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
