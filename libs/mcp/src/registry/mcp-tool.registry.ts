import { Injectable } from '@nestjs/common';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { DUPLICATE_TOOL, INVALID_TOOL_NAME } from '../mcp.messages.js';
import type { CompiledSchema } from '../schema/schema.types.js';
import { KeyedCollection, type Page } from './keyed-collection.js';
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
export class McpToolRegistry {
  private readonly tools = new KeyedCollection<McpToolEntry>();

  /** Adds a tool; an invalid or duplicate name is a definition error naming the source. */
  register(entry: McpToolEntry): void {
    if (!isValidToolName(entry.name)) throw new McpDefinitionError(INVALID_TOOL_NAME(String(entry.name), entry.source));
    const existing = this.tools.get(entry.name);
    if (existing) throw new McpDefinitionError(DUPLICATE_TOOL(entry.name, entry.source, existing.source));
    this.tools.set(entry.name, entry);
  }

  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  get(name: string): McpToolEntry | undefined {
    return this.tools.get(name);
  }

  get size(): number {
    return this.tools.size;
  }

  page(cursor: unknown, pageSize: number): Page<McpToolEntry> {
    return this.tools.page(cursor, pageSize);
  }
}
