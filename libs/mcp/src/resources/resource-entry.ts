import type { McpResourceMetadata } from '../interfaces/mcp-resource-options.interface.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import { buildResourceDescriptor, type McpResourceEntry } from '../registry/mcp-resource.registry.js';
import { uiResourceOf, uiReadHandler } from '../apps/ui-resource.js';

/**
 * The parts of an exact resource's registry entry, the same for a declared and a runtime one:
 * its descriptor, MIME type and caching hints, and its handler. A `ui://` resource is a UI
 * resource (MCP Apps): MCP Apps' MIME type, and its `_meta.ui` on the descriptor and on what its
 * reads return. Invalid UI metadata is a definition error naming `source`.
 */
export function buildResourceEntry(
  uri: string,
  metadata: McpResourceMetadata,
  handler: McpHandlerFn,
  source: string,
): Pick<McpResourceEntry, 'uri' | 'descriptor' | 'mimeType' | 'handler' | 'cache' | 'source'> {
  const app = uiResourceOf(uri, metadata, source);
  const described = app?.metadata ?? metadata;
  return {
    uri,
    descriptor: buildResourceDescriptor(uri, described),
    mimeType: described.mimeType,
    handler: app?.meta ? uiReadHandler(uri, app.meta, handler) : handler,
    cache: metadata.cache,
    source,
  };
}
