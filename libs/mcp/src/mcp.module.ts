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
import { McpResourceTemplateRegistry } from './registry/mcp-resource-template.registry.js';
import { McpResourceResolver } from './resources/mcp-resource.resolver.js';
import { McpToolRegistry } from './registry/mcp-tool.registry.js';
import { InMemorySessionStore } from './session/in-memory-session.store.js';
import { McpSessionManager } from './session/mcp-session.manager.js';
import { McpServerStats } from './session/mcp-server-stats.js';
import { McpHttpHandler } from './transports/http/mcp-http.handler.js';
import { PostStreamLog } from './transports/http/post-stream.log.js';
import { McpOriginPolicy } from './transports/shared/origin-policy.js';
import { SubscriptionsHandler } from './protocol/handlers/subscriptions.handler.js';
import { LoggingHandler } from './protocol/handlers/logging.handler.js';
import { CompletionHandler } from './protocol/handlers/completion.handler.js';
import { McpInflightRequests } from './protocol/inflight-requests.js';
import { McpClientRequests } from './client-requests/mcp-client-requests.js';
import { McpToolHooks } from './hooks/mcp-tool-hooks.js';
import { McpToolRateLimiter } from './protocol/tool-rate-limiter.js';
import { MCP_SUBSCRIPTION_STORE } from './subscriptions/mcp-subscription.store.js';
import { InMemorySubscriptionStore } from './subscriptions/in-memory-subscription.store.js';
import { SubscriptionCleanup } from './subscriptions/subscription-cleanup.js';
import { MCP_NOTIFICATION_BUS } from './notifications/mcp-notification.bus.js';
import { LocalNotificationBus } from './notifications/local-notification.bus.js';
import { ListChangedCoalescer } from './notifications/list-changed.coalescer.js';
import { ResourceNotificationService } from './notifications/resource-notification.service.js';
import { McpResourceService } from './resources/mcp-resource.service.js';

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
    { provide: MCP_SUBSCRIPTION_STORE, useClass: InMemorySubscriptionStore },
    { provide: MCP_NOTIFICATION_BUS, useClass: LocalNotificationBus },
    McpSessionManager,
    SubscriptionCleanup,
    ListChangedCoalescer,
    ResourceNotificationService,
    McpResourceService,
    McpServerStats,
    McpToolRegistry,
    McpResourceRegistry,
    McpResourceTemplateRegistry,
    McpResourceResolver,
    McpPromptRegistry,
    McpMetadataAccessor,
    McpHandlerFactory,
    McpExplorer,
    McpErrorMapper,
    LifecycleHandler,
    ToolsHandler,
    ResourcesHandler,
    PromptsHandler,
    SubscriptionsHandler,
    LoggingHandler,
    CompletionHandler,
    McpInflightRequests,
    McpClientRequests,
    McpToolHooks,
    McpToolRateLimiter,
    McpDispatcher,
    McpHttpHandler,
    PostStreamLog,
    McpOriginPolicy,
  ],
  exports: [
    MCP_RESOLVED_OPTIONS,
    MCP_SESSION_STORE,
    MCP_SUBSCRIPTION_STORE,
    MCP_NOTIFICATION_BUS,
    ResourceNotificationService,
    McpResourceService,
    McpSessionManager,
    McpServerStats,
    McpToolRegistry,
    McpResourceRegistry,
    McpResourceTemplateRegistry,
    McpPromptRegistry,
    McpDispatcher,
  ],
})
export class McpModule extends McpConfigurableModuleClass {}
