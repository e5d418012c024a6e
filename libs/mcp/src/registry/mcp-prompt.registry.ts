import { Injectable } from '@nestjs/common';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { DUPLICATE_PROMPT } from '../mcp.messages.js';
import type { McpPromptArgument } from '../interfaces/mcp-prompt-options.interface.js';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import { KeyedCollection, type Page } from './keyed-collection.js';
import type { McpHandlerFn } from './mcp-handler.types.js';

/** A prompt ready to serve. */
export interface McpPromptEntry {
  readonly name: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly arguments: readonly McpPromptArgument[];
  readonly description?: string;
  readonly handler: McpHandlerFn;
  readonly source: string;
  /** Completers by argument name, bound to their provider. */
  readonly completers?: ReadonlyMap<string, McpCompleter>;
}

/** The prompts of this server, by exact name. @publicApi */
@Injectable()
export class McpPromptRegistry {
  private readonly prompts = new KeyedCollection<McpPromptEntry>();

  register(entry: McpPromptEntry): void {
    const existing = this.prompts.get(entry.name);
    if (existing) throw new McpDefinitionError(DUPLICATE_PROMPT(entry.name, entry.source, existing.source));
    this.prompts.set(entry.name, entry);
  }

  unregister(name: string): boolean {
    return this.prompts.delete(name);
  }

  get(name: string): McpPromptEntry | undefined {
    return this.prompts.get(name);
  }

  get size(): number {
    return this.prompts.size;
  }

  /** True when any prompt argument offers completion. */
  get hasCompleters(): boolean {
    for (const prompt of this.prompts.values()) if (prompt.completers?.size) return true;
    return false;
  }

  page(cursor: unknown, pageSize: number): Page<McpPromptEntry> {
    return this.prompts.page(cursor, pageSize);
  }
}
