import { Injectable } from '@nestjs/common';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import type { UriTemplate, UriVariables } from '../templates/index.js';
import { EntryRegistry } from './entry-registry.js';
import type { McpHandlerFn } from './mcp-handler.types.js';

/** A resource template ready to serve. */
export interface McpResourceTemplateEntry {
  readonly uriTemplate: string;
  readonly template: UriTemplate;
  /** The `resources/templates/list` item. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly mimeType?: string;
  /** Called with `({ uri, variables }, ctx)`. */
  readonly handler: McpHandlerFn;
  readonly source: string;
  readonly runtime?: boolean;
  readonly completers?: ReadonlyMap<string, McpCompleter>;
}

/** A concrete URI and the template it matched. */
export interface McpTemplateMatch {
  readonly entry: McpResourceTemplateEntry;
  readonly variables: UriVariables;
}

/** The resource templates of this server, by template text. @publicApi */
@Injectable()
export class McpResourceTemplateRegistry extends EntryRegistry<McpResourceTemplateEntry> {
  protected keyOf(entry: McpResourceTemplateEntry): string {
    return entry.uriTemplate;
  }

  protected duplicate(entry: McpResourceTemplateEntry, existing: McpResourceTemplateEntry): string {
    return `Duplicate MCP resource template '${entry.uriTemplate}' on ${entry.source}: already declared on ${existing.source}`;
  }

  /** True when any template variable offers completion. */
  get hasCompleters(): boolean {
    for (const entry of this.entries.values()) if (entry.completers?.size) return true;
    return false;
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
