import type { McpCompleter } from './mcp-completion.interface.js';
import type { McpIcon } from './mcp-icon.interface.js';

/** Hints about a resource or a content block (MCP annotations). @publicApi */
export interface McpAnnotations {
  audience?: ('user' | 'assistant')[];
  /** 0 (least) to 1 (most important). */
  priority?: number;
  /** ISO 8601 timestamp. */
  lastModified?: string;
}

/** Descriptive fields of a resource or a resource template. @publicApi */
export interface McpResourceMetadata {
  /** Display name; defaults to the URI (or the template) in lists. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: McpIcon[];
  annotations?: McpAnnotations;
  /** Size in bytes, when known. */
  size?: number;
  _meta?: Record<string, unknown>;
}

/**
 * Options of `@McpResource()`: an exact `uri`, or an RFC 6570 `uriTemplate` whose handler
 * receives `({ uri, variables }, ctx)`.
 * @publicApi
 */
export type McpResourceOptions = McpResourceMetadata &
  (
    | { /** The exact URI, with a scheme (`system://info`, `file:///README.md`). */ uri: string; uriTemplate?: never }
    | {
        /** An RFC 6570 template with a scheme (`db://notes/{id}`). */
        uriTemplate: string;
        uri?: never;
        /** Completers of the template variables, by name (`completion/complete`). */
        complete?: Record<string, McpCompleter>;
      }
  );
