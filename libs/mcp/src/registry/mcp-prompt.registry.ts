import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../interfaces/mcp-cache.interface.js';
import { DUPLICATE_PROMPT } from '../mcp.messages.js';
import type { McpPromptArgument } from '../interfaces/mcp-prompt-options.interface.js';
import { EntryRegistry } from './entry-registry.js';
import type { McpHandlerFn } from './mcp-handler.types.js';

/** A prompt ready to serve. */
export interface McpPromptEntry {
  readonly name: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly arguments: readonly McpPromptArgument[];
  readonly description?: string;
  readonly handler: McpHandlerFn;
  /** Scopes a caller's token needs to use it (`@RequireScopes()`, resource-server mode). */
  readonly requiredScopes?: readonly string[];
  readonly source: string;
  /**
   * Completers by argument name, called with `(McpCompletionArgs, ctx)` through the prompt's
   * enhancers.
   */
  readonly completers?: ReadonlyMap<string, McpHandlerFn>;
  /** Its caching hints (modern era), when it overrides the module's. */
  readonly cache?: McpCacheHints;
  /** Its arguments by name, for checking the arguments of `prompts/get`. */
  readonly argumentsByName?: ReadonlyMap<string, McpPromptArgument>;
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

  private completing = 0;

  /** Adds a prompt, with its arguments indexed by name once. */
  override register(entry: McpPromptEntry): void {
    super.register({
      ...entry,
      argumentsByName: new Map(entry.arguments.map((argument) => [argument.name, argument])),
    });
    if (entry.completers?.size) this.completing++;
  }

  override unregister(key: string): boolean {
    const entry = this.get(key);
    if (!super.unregister(key)) return false;
    if (entry?.completers?.size) this.completing--;
    return true;
  }

  /** True when any prompt argument offers completion (counted, not searched, per request). */
  get hasCompleters(): boolean {
    return this.completing > 0;
  }
}
