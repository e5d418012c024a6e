import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpUiResourceMeta } from '../../interfaces/mcp-ui-meta.interface.js';
import type { McpResourceMetadata } from '../../interfaces/mcp-resource-options.interface.js';
import type { McpHandlerFn } from '../../context/mcp-handler.types.js';
import { toContents } from '../../results/resource-contents.js';
import { isUiUri, MCP_APP_MIME_TYPE } from './mcp-apps.constants.js';
import { UI_META_TWICE, UI_MIME_TYPE, UI_OUTSIDE_UI_SCHEME, UI_RESOURCE_TEMPLATE } from './mcp-apps.messages.js';
import { checkedUiResourceMeta } from './ui-meta.rules.js';

/** A UI resource as declared: what to describe it with, and its checked `_meta.ui`. */
export interface UiResource {
  /** The metadata it is described with: MCP Apps' MIME type, and `_meta.ui` when it has one. */
  readonly metadata: McpResourceMetadata;
  readonly meta?: Readonly<McpUiResourceMeta>;
}

const uiInMeta = (metadata: McpResourceMetadata): unknown => metadata._meta?.ui;

/**
 * Decides whether a resource is a UI resource (MCP Apps): every `ui://` resource is one, and
 * nothing else may carry UI metadata. Checks what it declares (`ui`, or `_meta.ui`, once; the
 * MIME type, when given, MCP Apps'), and returns how to describe it; `undefined` for a plain
 * resource. Anything wrong is a definition error naming `where`.
 */
export function uiResourceOf(uri: string, metadata: McpResourceMetadata, where: string): UiResource | undefined {
  const declared = metadata.ui;
  const inMeta = uiInMeta(metadata);
  if (!isUiUri(uri)) {
    if (declared !== undefined || inMeta !== undefined) throw new McpDefinitionError(UI_OUTSIDE_UI_SCHEME(uri, where));
    return undefined;
  }
  if (declared !== undefined && inMeta !== undefined) throw new McpDefinitionError(UI_META_TWICE(where));
  if (metadata.mimeType !== undefined && metadata.mimeType !== MCP_APP_MIME_TYPE) {
    throw new McpDefinitionError(UI_MIME_TYPE(uri, where, metadata.mimeType, MCP_APP_MIME_TYPE));
  }
  const raw = declared ?? inMeta;
  const meta = raw === undefined ? undefined : checkedUiResourceMeta(raw, where);
  const { ui: _ui, ...rest } = metadata;
  const _meta = meta ? { ...metadata._meta, ui: meta } : metadata._meta;
  return { metadata: { ...rest, mimeType: MCP_APP_MIME_TYPE, ...(_meta ? { _meta } : {}) }, meta };
}

/** A template never serves UI resources: hosts read the exact URI a tool names. */
export function assertNotUiTemplate(uriTemplate: string, metadata: McpResourceMetadata, where: string): void {
  if (isUiUri(uriTemplate) || metadata.ui !== undefined || uiInMeta(metadata) !== undefined) {
    throw new McpDefinitionError(UI_RESOURCE_TEMPLATE(uriTemplate, where));
  }
}

/**
 * The read handler of a UI resource with `_meta.ui`: every content item it returns carries it
 * too (MCP Apps: hosts prefer the content item's, falling back to the listing's), unless the
 * handler set one of its own, which then wins. It wraps the handler where it is registered, so a
 * read forwarded from another instance gets the same contents.
 */
export function uiReadHandler(uri: string, meta: Readonly<McpUiResourceMeta>, handler: McpHandlerFn): McpHandlerFn {
  return async (args, ctx) => {
    const contents = toContents(uri, MCP_APP_MIME_TYPE, await handler(args, ctx));
    return {
      contents: contents.map((item) => {
        if (typeof item !== 'object' || item === null) return item;
        const content = item as { _meta?: Record<string, unknown> };
        if (content._meta?.ui !== undefined) return item;
        return { ...content, _meta: { ...content._meta, ui: meta } };
      }),
    };
  };
}
