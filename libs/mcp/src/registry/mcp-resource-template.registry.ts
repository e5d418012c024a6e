import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { UriTemplate, UriVariables } from '../templates/index.js';
import { CompletingRegistry } from './completing-registry.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';

/** A resource template ready to serve. */
export interface McpResourceTemplateEntry {
  readonly uriTemplate: string;
  readonly template: UriTemplate;
  /** The `resources/templates/list` item. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly mimeType?: string;
  /** Called with `({ uri, variables }, ctx)`. */
  readonly handler: McpHandlerFn;
  /** Scopes a caller's token needs to use it (`@RequireScopes()`, resource-server mode). */
  readonly requiredScopes?: readonly string[];
  readonly source: string;
  readonly runtime?: boolean;
  /**
   * Completers by variable name, called with `(McpCompletionArgs, ctx)` (through the template's
   * enhancers when it was declared with a decorator).
   */
  readonly completers?: ReadonlyMap<string, McpHandlerFn>;
  /**
   * Called with `({ uri, variables }, ctx)`: whether a matched URI exists. Without it, a match
   * is enough.
   */
  readonly exists?: McpHandlerFn;
  /** Caching hints of reads it serves (modern era), when it overrides the module's. */
  readonly cache?: McpCacheHints;
}

/** A concrete URI and the template it matched. */
export interface McpTemplateMatch {
  readonly entry: McpResourceTemplateEntry;
  readonly variables: UriVariables;
}

/** The resource templates of this server, by template text. @publicApi */
@Injectable()
export class McpResourceTemplateRegistry extends CompletingRegistry<McpResourceTemplateEntry> {
  protected keyOf(entry: McpResourceTemplateEntry): string {
    return entry.uriTemplate;
  }

  protected duplicate(entry: McpResourceTemplateEntry, existing: McpResourceTemplateEntry): string {
    return `Duplicate MCP resource template '${entry.uriTemplate}' on ${entry.source}: already declared on ${existing.source}`;
  }

  /**
   * The first template (in registration order) that matches `uri`. Each match is one linear scan of
   * the URI, so the cost is bounded by templates × URI length, never exponential.
   */
  match(uri: string): McpTemplateMatch | undefined {
    for (const entry of this.entries.values()) {
      const variables = entry.template.match(uri);
      if (variables) return { entry, variables };
    }
    return undefined;
  }
}
