import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpExplorer } from './discovery/mcp.explorer.js';
import { McpDeclarationsRegistrar } from './discovery/mcp-declarations.registrar.js';
import { McpHandlerFactory } from './discovery/mcp-handler.factory.js';
import { McpMetadataAccessor } from './discovery/mcp-metadata.accessor.js';
import { MCP_MODULE_OPTIONS, McpConfigurableModuleClass } from './mcp.module-definition.js';
import { MCP_BACKEND_PROVIDERS } from './mcp-backend.providers.js';
import { resolveMcpOptions } from './mcp-options.resolver.js';
import { MCP_RESOLVED_OPTIONS } from './mcp.constants.js';
import { MCP_OPTION_GROUP_PROVIDERS } from './mcp-option-groups.js';
import { LifecycleHandler } from './protocol/handlers/lifecycle.handler.js';
import { PromptsHandler } from './protocol/handlers/prompts.handler.js';
import { McpResourceLists } from './protocol/handlers/resource-lists.js';
import { ResourcesHandler } from './protocol/handlers/resources.handler.js';
import { ToolsHandler } from './protocol/handlers/tools.handler.js';
import { McpToolCallPipeline } from './protocol/handlers/tool-call.pipeline.js';
import { McpToolRun } from './protocol/handlers/tool-run.js';
import { McpDispatcher } from './protocol/dispatch/mcp.dispatcher.js';
import { McpRequestRun } from './protocol/dispatch/request-run.js';
import { McpInboundNotifications } from './protocol/dispatch/inbound-notifications.js';
import { McpInboundPort } from './protocol/dispatch/inbound-port.js';
import { McpInboundClassifier } from './protocol/inbound/inbound-classifier.js';
import { McpMethods } from './protocol/handlers/mcp-methods.js';
import { LegacyEra } from './protocol/eras/legacy.era.js';
import { ModernEra } from './protocol/eras/modern.era.js';
import { McpErrorMapper } from './protocol/mcp-error.mapper.js';
import { McpPromptRegistry } from './registry/mcp-prompt.registry.js';
import { McpResourceRegistry } from './registry/mcp-resource.registry.js';
import { McpResourceTemplateRegistry } from './registry/mcp-resource-template.registry.js';
import { McpResourceResolver } from './resources/mcp-resource.resolver.js';
import { McpToolRegistry } from './registry/mcp-tool.registry.js';
import { McpSessionManager } from './session/mcp-session.manager.js';
import { McpServerStats } from './session/mcp-server-stats.js';
import { McpTelemetry } from './telemetry/mcp-telemetry.js';
import { telemetryCatalog } from './telemetry/recorded-values.js';
import type { ResolvedMcpOptions } from './interfaces/mcp-module-options.interface.js';
import { McpHttpSessionBinding } from './transports/http/http-session-binding.js';
import { McpHttpStreams } from './transports/http/http-streams.js';
import { McpHttpHandler } from './transports/http/mcp-http.handler.js';
import { McpEventStreams } from './transports/http/event-streams.js';
import { ConnectionSessions } from './transports/connection/connection-sessions.js';
import { McpOriginPolicy } from './transports/connection/origin-policy.js';
import { SubscriptionsHandler } from './protocol/handlers/subscriptions.handler.js';
import { LoggingHandler } from './protocol/handlers/logging.handler.js';
import { CompletionHandler } from './protocol/handlers/completion.handler.js';
import { McpInflightRequests } from './protocol/inflight-requests.js';
import { McpClientRequests } from './client-requests/mcp-client-requests.js';
import { McpToolHooks } from './hooks/mcp-tool-hooks.js';
import { McpToolRateLimiter } from './protocol/tool-rate-limiter.js';
import { ListChangedCoalescer } from './notifications/list-changed.coalescer.js';
import { ResourceNotificationService } from './notifications/resource-notification.service.js';
import { McpResourceService } from './resources/mcp-resource.service.js';
import { McpMrtr } from './protocol/modern/mrtr.service.js';
import { McpModernResults } from './protocol/modern/modern-results.js';
import { DiscoverHandler } from './protocol/handlers/discover.handler.js';
import { ListenHandler } from './protocol/listen/listen.handler.js';
import { McpListens } from './protocol/listen/listens.registry.js';
import { McpAuthenticator } from './auth/mcp-authenticator.js';
import { McpResourceMetadataMount } from './transports/http/resource-metadata.mount.js';
import { McpAccessPolicy } from './auth/mcp-access.policy.js';
import { RuntimeResourceSync } from './resources/runtime-resource-sync.js';
import { McpExtensions } from './extension/mcp-extensions.js';
import { McpExtensionHost } from './protocol/handlers/mcp-extension.host.js';
import { McpAppsExtension } from './extensions/apps/mcp-apps.extension.js';
import { MCP_TASK_PROVIDERS } from './extensions/tasks/mcp-tasks.providers.js';
import { SkillsHandler } from './extensions/skills/skills.handler.js';
import { ServedSkills } from './extensions/skills/served-skills.js';
import { RuntimeSkills } from './extensions/skills/runtime-skills.js';
import { McpSkills } from './extensions/skills/mcp-skills.service.js';
import { keepTickShape } from './transports/connection/tick-shape.js';

// As the library loads, before a server's start-up: Node's ticks keep one hidden class for the
// life of the process, so they stay on V8's fast path (transports/connection/tick-shape.ts).
keepTickShape();

/**
 * Turns a Nest application into an MCP server: discovers `@McpTool`, `@McpResource` and
 * `@McpPrompt` methods and serves them over Streamable HTTP (and, as the extras ask,
 * WebSocket, legacy HTTP+SSE and stdio).
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
    ...MCP_OPTION_GROUP_PROVIDERS,
    ...MCP_BACKEND_PROVIDERS,
    McpSessionManager,
    ListChangedCoalescer,
    ResourceNotificationService,
    McpResourceService,
    RuntimeResourceSync,
    McpServerStats,
    {
      provide: McpTelemetry,
      // Only the names the server serves are recorded (its method table, its tools and prompts).
      useFactory: (
        options: ResolvedMcpOptions,
        methods: McpMethods,
        tools: McpToolRegistry,
        prompts: McpPromptRegistry,
      ) =>
        new McpTelemetry(
          options.telemetry,
          options.maxSessions,
          telemetryCatalog(
            (method) => methods.serves(method),
            (name) => tools.has(name),
            (name) => prompts.has(name),
          ),
        ),
      inject: [MCP_RESOLVED_OPTIONS, McpMethods, McpToolRegistry, McpPromptRegistry],
    },
    McpToolRegistry,
    McpResourceRegistry,
    McpResourceTemplateRegistry,
    McpResourceResolver,
    McpPromptRegistry,
    McpMetadataAccessor,
    McpHandlerFactory,
    McpExplorer,
    McpDeclarationsRegistrar,
    McpErrorMapper,
    McpMethods,
    McpInboundClassifier,
    LegacyEra,
    ModernEra,
    LifecycleHandler,
    ToolsHandler,
    McpToolCallPipeline,
    McpToolRun,
    McpResourceLists,
    ResourcesHandler,
    PromptsHandler,
    SubscriptionsHandler,
    LoggingHandler,
    CompletionHandler,
    McpInflightRequests,
    McpClientRequests,
    McpToolHooks,
    McpToolRateLimiter,
    McpMrtr,
    McpModernResults,
    DiscoverHandler,
    ListenHandler,
    McpListens,
    McpDispatcher,
    McpRequestRun,
    McpInboundNotifications,
    McpInboundPort,
    ConnectionSessions,
    McpHttpHandler,
    McpHttpSessionBinding,
    McpHttpStreams,
    McpEventStreams,
    McpOriginPolicy,
    McpAuthenticator,
    McpAccessPolicy,
    McpResourceMetadataMount,
    // Extensions plug in through one contract (docs/extensions.md).
    McpExtensions,
    McpExtensionHost,
    // MCP Apps (docs/apps.md)
    McpAppsExtension,
    ...MCP_TASK_PROVIDERS,
    // The skills extension (docs/skills.md)
    ServedSkills,
    SkillsHandler,
    RuntimeSkills,
    McpSkills,
  ],
  // What an application injects; everything else is internal (tests reach it with `app.get`).
  exports: [ResourceNotificationService, McpResourceService, McpServerStats, McpSkills],
})
export class McpModule extends McpConfigurableModuleClass {}
