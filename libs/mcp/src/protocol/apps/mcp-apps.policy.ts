import { Injectable } from '@nestjs/common';
import { McpResourceRegistry, type McpResourceEntry } from '../../registry/mcp-resource.registry.js';
import { McpToolRegistry, type McpToolEntry } from '../../registry/mcp-tool.registry.js';
import { isUiUri, MCP_APPS_EXTENSION } from '../../apps/mcp-apps.constants.js';
import { rendersApps } from '../../apps/host-support.js';

/** The part of a request context the policy reads. */
interface Caller {
  readonly clientCapabilities?: Readonly<Record<string, unknown>>;
}

type Filter<T> = (entry: T) => boolean;

/** What `tools/list` shows a caller: which tools, and each one's descriptor. */
export interface McpToolsShown {
  readonly filter?: Filter<McpToolEntry>;
  readonly describe?: (entry: McpToolEntry) => Readonly<Record<string, unknown>>;
}

/**
 * What a host sees of MCP Apps, decided per request from the capabilities its client declared.
 * A host that declared the extension gets the tools and UI resources as declared. One that did
 * not gets what the extension leaves it: every tool as a plain tool (no `_meta.ui`), no app-only
 * tool (listed or callable: it exists for this server's views, and the model must not see it),
 * and no UI resource in `resources/list` (reading one still works). The server advertises the
 * extension (`capabilities.extensions`) to every client as soon as it has an app. A server
 * without apps pays nothing.
 */
@Injectable()
export class McpAppsPolicy {
  constructor(
    private readonly tools: McpToolRegistry,
    private readonly resources: McpResourceRegistry,
  ) {}

  /** The capabilities, with `extensions["io.modelcontextprotocol/ui"]: {}` when the server has apps. */
  advertise(capabilities: Record<string, unknown>): Record<string, unknown> {
    if (this.tools.appLinked === 0 && this.resources.uiCount === 0) return capabilities;
    const extensions = capabilities.extensions;
    const others = typeof extensions === 'object' && extensions !== null ? extensions : {};
    return { ...capabilities, extensions: { ...others, [MCP_APPS_EXTENSION]: {} } };
  }

  /** The tools a caller's `tools/list` shows, within `base` (the authorization filter). */
  toolsShownTo(caller: Caller, base?: Filter<McpToolEntry>): McpToolsShown {
    if (this.tools.appLinked === 0 || rendersApps(caller.clientCapabilities)) return { filter: base };
    return {
      filter: (entry) => !entry.ui?.appOnly && (base === undefined || base(entry)),
      describe: (entry) => entry.ui?.plainDescriptor ?? entry.descriptor,
    };
  }

  /** Whether a caller may call the tool: an app-only tool exists only for hosts that render apps. */
  callable(tool: McpToolEntry, caller: Caller): boolean {
    return !tool.ui?.appOnly || rendersApps(caller.clientCapabilities);
  }

  /** The resources a caller's `resources/list` shows, within `base` (the authorization filter). */
  resourcesShownTo(caller: Caller, base?: Filter<McpResourceEntry>): Filter<McpResourceEntry> | undefined {
    if (this.resources.uiCount === 0 || rendersApps(caller.clientCapabilities)) return base;
    return (entry) => !isUiUri(entry.uri) && (base === undefined || base(entry));
  }
}
