import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import { DUPLICATE_PROMPT } from '../mcp.messages.js';
import type { McpPromptArgument } from '../interfaces/mcp-prompt-options.interface.js';
import { CompletingRegistry } from './completing-registry.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';

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
export class McpPromptRegistry extends CompletingRegistry<McpPromptEntry> {
  protected keyOf(entry: McpPromptEntry): string {
    return entry.name;
  }

  protected duplicate(entry: McpPromptEntry, existing: McpPromptEntry): string {
    return DUPLICATE_PROMPT(entry.name, entry.source, existing.source);
  }

  /** Adds a prompt, with its arguments indexed by name once. */
  override register(entry: McpPromptEntry): void {
    super.register({
      ...entry,
      argumentsByName: new Map(entry.arguments.map((argument) => [argument.name, argument])),
    });
  }
}
