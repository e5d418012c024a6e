import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpUiToolMeta } from '../../interfaces/mcp-ui-meta.interface.js';
import type { McpToolOptions } from '../../interfaces/mcp-tool-options.interface.js';
import { LEGACY_RESOURCE_URI_META_KEY } from './mcp-apps.constants.js';
import { UI_META_TWICE } from './mcp-apps.messages.js';
import { checkedToolUiMeta } from './ui-meta.rules.js';

/** The MCP Apps side of a registered tool. */
export interface McpToolUi {
  /** Its `_meta.ui`, checked. */
  readonly meta: Readonly<McpUiToolMeta>;
  /** Callable by this server's views only: hidden from hosts without MCP Apps. */
  readonly appOnly: boolean;
  /** The `tools/list` item a host without MCP Apps gets: the tool without its UI metadata. */
  readonly plainDescriptor: Readonly<Record<string, unknown>>;
}

/**
 * Adds the MCP Apps metadata of a tool to its descriptor: `_meta.ui` (`resourceUri`,
 * `visibility`) and, for older hosts, the flat `_meta["ui/resourceUri"]`, as the extension's own
 * server helper does. The UI may be declared in `ui` or (as the wire has it) in `_meta.ui`, not
 * both. Returns the descriptor unchanged, and no `ui`, for a tool without any.
 */
export function withToolUi(
  options: McpToolOptions,
  descriptor: Record<string, unknown>,
  where: string,
): { descriptor: Record<string, unknown>; ui?: McpToolUi } {
  const { ui: inMeta, [LEGACY_RESOURCE_URI_META_KEY]: legacyUri, ...otherMeta } = options._meta ?? {};
  if (options.ui !== undefined && (inMeta !== undefined || legacyUri !== undefined)) {
    throw new McpDefinitionError(UI_META_TWICE(where));
  }
  const raw = options.ui ?? inMeta ?? (legacyUri !== undefined ? { resourceUri: legacyUri } : undefined);
  if (raw === undefined) return { descriptor };
  const meta = checkedToolUiMeta(raw, where);
  const { _meta: _dropped, ...rest } = descriptor;
  const plainDescriptor = Object.keys(otherMeta).length > 0 ? { ...rest, _meta: otherMeta } : rest;
  const uiMeta = {
    ...otherMeta,
    ui: meta,
    ...(meta.resourceUri !== undefined ? { [LEGACY_RESOURCE_URI_META_KEY]: meta.resourceUri } : {}),
  };
  const appOnly = meta.visibility !== undefined && !meta.visibility.includes('model');
  return { descriptor: { ...rest, _meta: uiMeta }, ui: { meta, appOnly, plainDescriptor } };
}

/**
 * A descriptor another extension rewrote, without its UI metadata: what `plainDescriptor` is
 * of the registered one, so a host without MCP Apps gets the others' rewrites too (the 2025-11-25
 * `execution.taskSupport`), whatever order the extensions were plugged in.
 */
export function withoutUi(descriptor: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const { _meta: meta, ...rest } = descriptor;
  if (meta === undefined || meta === null || typeof meta !== 'object') return descriptor;
  const { ui: _ui, [LEGACY_RESOURCE_URI_META_KEY]: _legacy, ...otherMeta } = meta as Record<string, unknown>;
  return Object.keys(otherMeta).length > 0 ? { ...rest, _meta: otherMeta } : rest;
}
