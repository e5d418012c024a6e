import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { requiredScopesOf } from '../../auth/required-scopes.js';
import { McpResourceRegistry, type McpResourceEntry } from '../../registry/mcp-resource.registry.js';
import { McpToolRegistry, type McpToolEntry } from '../../registry/mcp-tool.registry.js';
import { withExtensionCapability } from '../../extension/mcp-extensions.js';
import type {
  McpCaller,
  McpDeclaredTool,
  McpDiscoveredResource,
  McpExtension,
  McpResourceDeclaration,
  McpScannedProvider,
  McpShown,
  McpTemplateDeclaration,
  McpToolDeclaration,
  McpToolSteps,
} from '../../extension/mcp-extension.interface.js';
import { McpExtensionHost } from '../../protocol/handlers/mcp-extension.host.js';
import { isUiUri, MCP_APPS_EXTENSION } from './mcp-apps.constants.js';
import { UI_OUTSIDE_UI_SCHEME, UNKNOWN_UI_RESOURCE } from './mcp-apps.messages.js';
import { rendersApps } from './host-support.js';
import { withoutUi, withToolUi, type McpToolUi } from './tool-ui.js';
import { assertNotUiTemplate, uiReadHandler, uiResourceOf } from './ui-resource.js';
import { appsDeclaredOn } from './mcp-app.decorator.js';
import { appHtmlHandler } from './app-html.js';

/** The MCP Apps side of a registered tool, when it has one. */
const uiOf = (tool: McpToolEntry): McpToolUi | undefined =>
  tool.extensions?.[MCP_APPS_EXTENSION] as McpToolUi | undefined;

const PLAIN_TOOLS: McpShown<McpToolEntry> = {
  filter: (entry) => !uiOf(entry)?.appOnly,
  describe: (entry, descriptor) => {
    const ui = uiOf(entry);
    if (!ui) return descriptor;
    // The registered descriptor's plain form is built once; another extension's rewrite is stripped here.
    return descriptor === entry.descriptor ? ui.plainDescriptor : withoutUi(descriptor);
  },
};

const APP_ONLY_STEPS: McpToolSteps = Object.freeze({ callable: true });
const NO_STEPS: McpToolSteps = Object.freeze({ callable: false });

const NO_UI_RESOURCES: McpShown<McpResourceEntry> = { filter: (entry) => !isUiUri(entry.uri) };

/**
 * MCP Apps (`io.modelcontextprotocol/ui`, docs/apps.md), plugged into the core as an extension.
 *
 * - Its metadata: a tool's `ui` (or `_meta.ui`) is checked and sent as `_meta.ui` (and the flat
 *   `ui/resourceUri` older hosts read); every `ui://` resource is a UI resource (MCP Apps' MIME
 *   type, `_meta.ui` on its listing and its contents), a template never is; `@McpApp` classes
 *   declare UI resources; every tool names a UI resource that exists (checked once every
 *   `onModuleInit` has run, so runtime registrations count).
 * - What each host sees, decided per request from the capabilities its client declared: a host
 *   that declared the extension gets the tools and UI resources as declared; one that did not
 *   gets every tool as a plain tool (no `_meta.ui`), no app-only tool (listed or callable: it
 *   exists for this server's views, and the model must not see it), and no UI resource in
 *   `resources/list` (reading one still works).
 * - Its capability: `extensions["io.modelcontextprotocol/ui"]: {}` in both eras, to every
 *   client, as soon as the server has an app. A server without apps pays nothing.
 */
@Injectable()
export class McpAppsExtension implements McpExtension, OnApplicationBootstrap {
  readonly name = MCP_APPS_EXTENSION;
  private readonly linkedTools: () => number;
  private readonly uiResources: () => number;

  constructor(
    private readonly tools: McpToolRegistry,
    private readonly resources: McpResourceRegistry,
    host: McpExtensionHost,
  ) {
    this.linkedTools = tools.counter((tool) => uiOf(tool) !== undefined);
    // Declared, runtime, or announced by another instance.
    this.uiResources = resources.counter((resource) => isUiUri(resource.uri));
    host.plug(this);
  }

  present(): boolean {
    return this.linkedTools() > 0 || this.uiResources() > 0;
  }

  capabilities(capabilities: Record<string, unknown>): Record<string, unknown> {
    return withExtensionCapability(capabilities, MCP_APPS_EXTENSION, {});
  }

  toolsShownTo(caller: McpCaller): McpShown<McpToolEntry> | undefined {
    return this.linkedTools() === 0 || rendersApps(caller.clientCapabilities) ? undefined : PLAIN_TOOLS;
  }

  resourcesShownTo(caller: McpCaller): McpShown<McpResourceEntry> | undefined {
    return this.uiResources() === 0 || rendersApps(caller.clientCapabilities) ? undefined : NO_UI_RESOURCES;
  }

  /** An app-only tool exists only for hosts that render apps. */
  callable(tool: McpToolEntry, caller: McpCaller): boolean {
    return !uiOf(tool)?.appOnly || rendersApps(caller.clientCapabilities);
  }

  /** Its visibility step applies to app-only tools alone: every other tool is callable by every host. */
  stepsFor(tool: McpToolEntry): McpToolSteps {
    return uiOf(tool)?.appOnly ? APP_ONLY_STEPS : NO_STEPS;
  }

  declareTool({ options, descriptor, source }: McpToolDeclaration): McpDeclaredTool | undefined {
    const declared = withToolUi(options, { ...descriptor }, source);
    return declared.ui ? { descriptor: declared.descriptor, data: declared.ui } : undefined;
  }

  declareResource(resource: McpResourceDeclaration): McpResourceDeclaration {
    const app = uiResourceOf(resource.uri, resource.metadata, resource.source);
    if (!app) return resource;
    const handler = app.meta ? uiReadHandler(resource.uri, app.meta, resource.handler) : resource.handler;
    return { ...resource, metadata: app.metadata, handler };
  }

  declareTemplate({ uriTemplate, metadata, source }: McpTemplateDeclaration): void {
    assertNotUiTemplate(uriTemplate, metadata, source);
  }

  /** Each `@McpApp` of a class: a UI resource served from its html, under the class's `@RequireScopes()`. */
  async discover({ classRef, instance }: McpScannedProvider): Promise<McpDiscoveredResource[]> {
    const found: McpDiscoveredResource[] = [];
    for (const app of appsDeclaredOn(classRef)) {
      const source = `${classRef.name} (@McpApp '${String(app.uri)}')`;
      const { uri, html, ...metadata } = app;
      if (!isUiUri(uri)) throw new McpDefinitionError(UI_OUTSIDE_UI_SCHEME(String(uri), source));
      const handler = await appHtmlHandler(html, instance, source);
      found.push({ uri, metadata, handler, source, requiredScopes: requiredScopesOf(classRef, undefined, source) });
    }
    return found;
  }

  /**
   * Every tool that names a UI resource names one that exists (MCP Apps: the resource MUST exist
   * on the server). Checked once, when every `onModuleInit` has run: the explorer's (declared
   * resources) and the application's (resources registered at runtime, which a decorated tool
   * may link to). A dangling link fails `app.init()`, naming the tool's `Class.method`.
   */
  onApplicationBootstrap(): void {
    if (this.linkedTools() === 0) return;
    for (const tool of this.tools.values()) {
      const uri = uiOf(tool)?.meta.resourceUri;
      if (uri !== undefined && !this.resources.has(uri)) {
        throw new McpDefinitionError(UNKNOWN_UI_RESOURCE(tool.name, tool.source, uri));
      }
    }
  }
}
