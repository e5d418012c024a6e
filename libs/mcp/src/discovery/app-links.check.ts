import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { UNKNOWN_UI_RESOURCE } from '../apps/mcp-apps.messages.js';

/**
 * Every tool that names a UI resource names one that exists (MCP Apps: the resource MUST exist
 * on the server). Checked once, when every `onModuleInit` has run: the explorer's (declared
 * resources) and the application's (resources registered at runtime, which a decorated tool may
 * link to). A dangling link fails `app.init()`, naming the tool's `Class.method`.
 */
@Injectable()
export class McpAppLinksCheck implements OnApplicationBootstrap {
  constructor(
    private readonly tools: McpToolRegistry,
    private readonly resources: McpResourceRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (this.tools.appLinked === 0) return;
    for (const tool of this.tools.values()) {
      const uri = tool.ui?.meta.resourceUri;
      if (uri !== undefined && !this.resources.has(uri)) {
        throw new McpDefinitionError(UNKNOWN_UI_RESOURCE(tool.name, tool.source, uri));
      }
    }
  }
}
