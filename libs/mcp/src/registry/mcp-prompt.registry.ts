import { Injectable } from '@nestjs/common';
import { DUPLICATE_PROMPT } from '../mcp.messages.js';
import type { McpPromptArgument } from '../interfaces/mcp-prompt-options.interface.js';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import { EntryRegistry } from './entry-registry.js';
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
export class McpPromptRegistry extends EntryRegistry<McpPromptEntry> {
  protected keyOf(entry: McpPromptEntry): string {
    return entry.name;
  }

  protected duplicate(entry: McpPromptEntry, existing: McpPromptEntry): string {
    return DUPLICATE_PROMPT(entry.name, entry.source, existing.source);
  }

  /** True when any prompt argument offers completion. */
  get hasCompleters(): boolean {
    for (const prompt of this.entries.values()) if (prompt.completers?.size) return true;
    return false;
  }
}
