import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpResourceMetadata } from '../interfaces/mcp-resource-options.interface.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import { buildResourceDescriptor } from '../registry/mcp-resource.registry.js';
import { hasUriScheme } from '../model/uri-scheme.js';
import type { McpResourceTemplateEntry } from '../registry/mcp-resource-template.registry.js';
import { compileUriTemplate, UriTemplateError } from '../templates/index.js';
import type { McpExtensions } from '../extension/mcp-extensions.js';

/** What serves a template besides its handler. */
export interface TemplateCallbacks {
  /** Completers by variable name. */
  completers?: ReadonlyMap<string, McpHandlerFn>;
  /** Whether a matched URI exists. */
  exists?: McpHandlerFn;
}

/**
 * Compiles a template into a registry entry, once. A malformed or scheme-less template is a
 * definition error naming where it was declared.
 */
export function buildTemplateEntry(
  uriTemplate: string,
  metadata: McpResourceMetadata,
  handler: McpHandlerFn,
  source: string,
  extensions: McpExtensions,
  { completers, exists }: TemplateCallbacks = {},
  runtime?: boolean,
): McpResourceTemplateEntry {
  if (!hasUriScheme(uriTemplate)) {
    throw new McpDefinitionError(
      `Invalid MCP resource template '${String(uriTemplate)}' on ${source}: it needs a scheme`,
    );
  }
  extensions.declareTemplate({ uriTemplate, metadata, source });
  let template;
  try {
    template = compileUriTemplate(uriTemplate);
  } catch (error) {
    const reason = error instanceof UriTemplateError ? error.message : String(error);
    throw new McpDefinitionError(`Invalid MCP resource template on ${source}: ${reason}`);
  }
  for (const name of completers?.keys() ?? []) {
    if (!template.variableNames.includes(name)) {
      throw new McpDefinitionError(`Completer for '${name}' on ${source}: '${uriTemplate}' has no such variable`);
    }
  }
  return {
    uriTemplate,
    template,
    descriptor: buildResourceDescriptor(uriTemplate, metadata, 'uriTemplate'),
    mimeType: metadata.mimeType,
    cache: metadata.cache,
    handler,
    source,
    runtime,
    completers,
    exists,
  };
}
