import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer.js';
import { McpHandlerFactory } from './discovery/mcp-handler.factory.js';
import { McpMetadataAccessor } from './discovery/mcp-metadata.accessor.js';
import { MCP_SESSION_STORE } from './mcp.constants.js';
import { MCP_MODULE_OPTIONS, McpConfigurableModuleClass } from './mcp.module-definition.js';
import { MCP_RESOLVED_OPTIONS, resolveMcpOptions } from './mcp-options.resolver.js';
import { LifecycleHandler } from './protocol/handlers/lifecycle.handler.js';
import { PromptsHandler } from './protocol/handlers/prompts.handler.js';
import { ResourcesHandler } from './protocol/handlers/resources.handler.js';
import { ToolsHandler } from './protocol/handlers/tools.handler.js';
import { McpDispatcher } from './protocol/mcp.dispatcher.js';
import { McpErrorMapper } from './protocol/mcp-error.mapper.js';
import { McpPromptRegistry } from './registry/mcp-prompt.registry.js';
import { McpResourceRegistry } from './registry/mcp-resource.registry.js';
import { McpToolRegistry } from './registry/mcp-tool.registry.js';
import { InMemorySessionStore } from './session/in-memory-session.store.js';
import { McpSessionManager } from './session/mcp-session.manager.js';
import { McpServerStats } from './session/mcp-server-stats.js';
import { McpHttpHandler } from './transports/http/mcp-http.handler.js';

/**
 * Turns a Nest application into an MCP server: discovers `@McpTool`, `@McpResource` and
 * `@McpPrompt` methods and serves them over Streamable HTTP.
 *
 * @example
 * ```ts
 * @Module({ imports: [McpModule.forRoot({ serverInfo: { name: 'notes', version: '1.0.0' } })] })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: MCP_RESOLVED_OPTIONS, useFactory: resolveMcpOptions, inject: [MCP_MODULE_OPTIONS] },
    { provide: MCP_SESSION_STORE, useClass: InMemorySessionStore },
    McpSessionManager,
    McpServerStats,
    McpToolRegistry,
    McpResourceRegistry,
    McpPromptRegistry,
    McpMetadataAccessor,
    McpHandlerFactory,
    McpExplorer,
    McpErrorMapper,
    LifecycleHandler,
    ToolsHandler,
    ResourcesHandler,
    PromptsHandler,
    McpDispatcher,
    McpHttpHandler,
  ],
  exports: [
    MCP_RESOLVED_OPTIONS,
    MCP_SESSION_STORE,
    McpSessionManager,
    McpServerStats,
    McpToolRegistry,
    McpResourceRegistry,
    McpPromptRegistry,
    McpDispatcher,
  ],
})
export class McpModule extends McpConfigurableModuleClass {}
