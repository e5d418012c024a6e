import { Injectable } from '@nestjs/common';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import type { UriTemplate, UriVariables } from '../templates/index.js';
import { KeyedCollection, type Page } from './keyed-collection.js';
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
export class McpResourceTemplateRegistry {
  private readonly templates = new KeyedCollection<McpResourceTemplateEntry>();

  register(entry: McpResourceTemplateEntry): void {
    const existing = this.templates.get(entry.uriTemplate);
    if (existing) {
      throw new McpDefinitionError(
        `Duplicate MCP resource template '${entry.uriTemplate}' on ${entry.source}: already declared on ${existing.source}`,
      );
    }
    this.templates.set(entry.uriTemplate, entry);
  }

  unregister(uriTemplate: string): boolean {
    return this.templates.delete(uriTemplate);
  }

  get(uriTemplate: string): McpResourceTemplateEntry | undefined {
    return this.templates.get(uriTemplate);
  }

  get size(): number {
    return this.templates.size;
  }

  /** True when any template variable offers completion. */
  get hasCompleters(): boolean {
    for (const entry of this.templates.values()) if (entry.completers?.size) return true;
    return false;
  }

  /**
   * The first template (in template order) that matches `uri`. Each match is one linear scan of
   * the URI, so the cost is bounded by templates × URI length, never exponential.
   */
  match(uri: string): McpTemplateMatch | undefined {
    for (const entry of this.templates.values()) {
      const variables = entry.template.match(uri);
      if (variables) return { entry, variables };
    }
    return undefined;
  }

  page(cursor: unknown, pageSize: number): Page<McpResourceTemplateEntry> {
    return this.templates.page(cursor, pageSize);
  }
}
