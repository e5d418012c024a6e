import type { McpResourceMetadata } from '../interfaces/mcp-resource-options.interface.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import { buildResourceDescriptor, type McpResourceEntry } from '../registry/mcp-resource.registry.js';
import type { McpExtensions } from '../extension/mcp-extensions.js';

/**
 * The parts of an exact resource's registry entry, the same for a declared and a runtime one:
 * its descriptor, MIME type and caching hints, and its handler, as the plugged extensions make
 * them (MCP Apps gives a `ui://` resource its MIME type and `_meta.ui`). What an extension
 * refuses is a definition error naming `source`.
 */
export function buildResourceEntry(
  uri: string,
  metadata: McpResourceMetadata,
  handler: McpHandlerFn,
  source: string,
  extensions: McpExtensions,
): Pick<McpResourceEntry, 'uri' | 'descriptor' | 'mimeType' | 'handler' | 'cache' | 'source'> {
  const declared = extensions.declareResource({ uri, metadata, handler, source });
  return {
    uri,
    descriptor: buildResourceDescriptor(uri, declared.metadata),
    mimeType: declared.metadata.mimeType,
    handler: declared.handler,
    cache: metadata.cache,
    source,
  };
}
