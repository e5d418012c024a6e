import type { McpRequestContext } from '../context/mcp-request-context.js';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { UriVariables } from '../templates/index.js';
import type { McpCompleter } from './mcp-completion.interface.js';
import type { McpIcon } from './mcp-icon.interface.js';
import type { McpUiResourceMeta } from './mcp-ui-meta.interface.js';

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
  /** Caching hints of its `resources/read` results and of list pages holding it (modern era). */
  cache?: McpCacheHints;
  /**
   * How hosts render it, for a UI resource (MCP Apps: a `ui://` URI, exact, never a template):
   * sent as `_meta.ui` in `resources/list` and on every content item its reads return. A `ui://`
   * resource is a UI resource with or without it; its `mimeType` is `text/html;profile=mcp-app`.
   * See docs/apps.md.
   */
  ui?: McpUiResourceMeta;
}

/**
 * Whether a URI that a template matches names a resource that exists: asked by
 * `resources/subscribe` (a subscription needs an existing resource). Resolve `false` for one
 * that does not; a throw is an error, answered as such (`-32603` for an unexpected one), never
 * as "not found". Called with the arguments of the template's handler.
 * @publicApi
 */
export type McpTemplateExists = (
  resource: { uri: string; variables: UriVariables },
  ctx: McpRequestContext,
) => boolean | Promise<boolean>;

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
        /**
         * Decides whether a matched URI exists, for `resources/subscribe`. It runs like the
         * template's handler: through the method's guards, interceptors and filters (and the
         * global ones), with the provider as `this`.
         * @default undefined (every URI the template matches exists; the handler is not called)
         */
        exists?: McpTemplateExists;
      }
  );
