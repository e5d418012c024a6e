export * from './mcp.module.js';
export { MCP_MODULE_OPTIONS, MCP_OPTIONS_TYPE, MCP_ASYNC_OPTIONS_TYPE } from './mcp.module-definition.js';
export {
  MCP_CONTEXT_TYPE,
  MCP_SESSION_STORE,
  SUPPORTED_PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
  type McpProtocolVersion,
} from './mcp.constants.js';
export * from './decorators/index.js';
export type * from './interfaces/mcp-module-options.interface.js';
export type * from './interfaces/mcp-tool-options.interface.js';
export type * from './interfaces/mcp-resource-options.interface.js';
export type * from './interfaces/mcp-prompt-options.interface.js';
export type * from './interfaces/mcp-icon.interface.js';
export type * from './interfaces/mcp-transport.interface.js';
export type { McpRequestContext } from './context/mcp-request-context.js';
export { McpExecutionContext, isMcpContext } from './context/mcp-execution-context.js';
export * from './errors/index.js';
export { McpToolRegistry, McpResourceRegistry, McpPromptRegistry } from './registry/index.js';
export { McpResourceTemplateRegistry } from './registry/mcp-resource-template.registry.js';
export { UriTemplate, UriTemplateError, MAX_URI_LENGTH, type UriVariables } from './templates/index.js';
export { McpSessionManager } from './session/mcp-session.manager.js';
export { McpServerStats } from './session/mcp-server-stats.js';
export type { McpSessionRecord, McpSessionStore } from './session/mcp-session.interface.js';
export { InMemorySessionStore } from './session/in-memory-session.store.js';
export * from './results/index.js';
export type { McpSchemaInput, JsonSchemaObject } from './schema/schema.types.js';
export { ResourceNotificationService } from './notifications/resource-notification.service.js';
export { MCP_NOTIFICATION_BUS, type McpNotificationBus } from './notifications/mcp-notification.bus.js';
export {
  McpResourceService,
  type McpResourceReader,
  type McpTemplateReader,
} from './resources/mcp-resource.service.js';
export { MCP_SUBSCRIPTION_STORE, type McpSubscriptionStore } from './subscriptions/mcp-subscription.store.js';
export { InMemorySubscriptionStore } from './subscriptions/in-memory-subscription.store.js';
export type { McpConnection } from './session/mcp-session.interface.js';
export { runMcpStdio } from './transports/stdio/run-mcp-stdio.js';
export { StderrLogger } from './transports/stdio/stderr.logger.js';
export { MCP_WS_SUBPROTOCOL } from './transports/ws/mcp-ws.gateway.js';
export { MCP_LOG_LEVELS, type McpLogLevel } from './logging/log-level.js';
export type * from './interfaces/mcp-completion.interface.js';
export * from './client-requests/client-request.errors.js';
export type * from './client-requests/client-request.types.js';
export { McpToolHook } from './hooks/mcp-tool-hook.decorator.js';
export type * from './hooks/mcp-tool-hook.interface.js';
export { McpToolLoggingHook } from './hooks/mcp-tool-logging.hook.js';
export { McpToolMetricsHook, type McpToolMetrics } from './hooks/mcp-tool-metrics.hook.js';
