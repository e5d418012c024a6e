// The public API of @nest-mcp/server. Internals (the dispatcher, the session manager, the
// transports, the registries' entry types) are not exported: they may change in any release.

// The module and its options
export * from './mcp.module.js';
export { MCP_MODULE_OPTIONS, MCP_OPTIONS_TYPE, MCP_ASYNC_OPTIONS_TYPE } from './mcp.module-definition.js';
export {
  MCP_CONTEXT_TYPE,
  SUPPORTED_PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  type McpProtocolVersion,
  type McpModernProtocolVersion,
  type McpAnyProtocolVersion,
  type McpProtocolEras,
} from './mcp.constants.js';
export type * from './interfaces/mcp-module-options.interface.js';
export type * from './interfaces/mcp-tool-options.interface.js';
export type * from './interfaces/mcp-resource-options.interface.js';
export type * from './interfaces/mcp-prompt-options.interface.js';
export type * from './interfaces/mcp-icon.interface.js';
export type * from './model/mcp-transport.interface.js';
export type * from './interfaces/mcp-completion.interface.js';
export type * from './model/mcp-cache.interface.js';

// Declaring capabilities
export * from './decorators/index.js';
export * from './results/index.js';
export type { McpSchemaInput, JsonSchemaObject } from './schema/schema.types.js';
export { UriTemplate, UriTemplateError, MAX_URI_LENGTH, type UriVariables } from './templates/index.js';

// Inside handlers and enhancers
export type { McpRequestContext, McpRoundState } from './context/mcp-request-context.js';
export { McpExecutionContext, isMcpContext } from './context/mcp-execution-context.js';
export * from './errors/index.js';
export { MCP_LOG_LEVELS, type McpLogLevel } from './model/log-level.js';
export { McpInputRequiredSignal } from './protocol/modern/input-round.js';
export * from './errors/client-request.errors.js';
export type * from './context/client-request.types.js';

// Services to inject
export { ResourceNotificationService } from './notifications/resource-notification.service.js';
export {
  McpResourceService,
  type McpResourceReader,
  type McpTemplateReader,
  type McpTemplateRegistration,
  type McpResourceRegistration,
} from './resources/mcp-resource.service.js';
export { McpServerStats } from './session/mcp-server-stats.js';
export { McpToolHook } from './hooks/mcp-tool-hook.decorator.js';
export type * from './hooks/mcp-tool-hook.interface.js';
export { McpToolLoggingHook } from './hooks/mcp-tool-logging.hook.js';
export { McpToolMetricsHook, type McpToolMetrics } from './hooks/mcp-tool-metrics.hook.js';

// Authorization (resource-server mode)
export * from './auth/index.js';

// Backends (where sessions, subscriptions and delivery state live)
export {
  McpBackendUnavailableError,
  type McpBackend,
  type McpBackendContext,
  type McpBackendParts,
} from './backend/mcp-backend.interface.js';
export { InMemoryMcpBackend } from './backend/in-memory/in-memory.backend.js';
export type * from './backend/mcp-session.store.js';
export type * from './backend/mcp-subscription.store.js';
export type * from './backend/mcp-notification.bus.js';
export type * from './backend/mcp-rate-windows.js';
export type * from './backend/mcp-request-state-nonces.js';
export {
  MCP_ALL_INSTANCES,
  type McpInstanceMessaging,
  type McpInstanceMessageHandler,
} from './backend/mcp-instance-messaging.js';
// What a backend author needs to deliver the way the core does.
export { ListenerIndex } from './backend/delivery/listener-index.js';
export {
  LIST_CHANGED_JSON,
  LIST_CHANGED_METHODS,
  RESOURCE_UPDATED,
  resourceUpdatedJson,
} from './backend/delivery/notification.messages.js';

// Transports that need a helper
export { runMcpStdio } from './transports/stdio/run-mcp-stdio.js';
export { StderrLogger } from './transports/stdio/stderr.logger.js';
export type { McpStdioOptions } from './transports/stdio/mcp-stdio.transport.js';
export { MCP_WS_SUBPROTOCOL } from './transports/ws/mcp-ws.gateway.js';

// Tasks (long-running tool calls the client polls; docs/tasks.md)
export type { McpTaskSupport } from './model/task-support.js';
export type { McpTaskContext } from './context/mcp-request-context.js';
export * from './tasks/task.errors.js';
export { TASKS_EXTENSION, META_RELATED_TASK } from './tasks/task-wire.js';
export {
  isTerminalTaskStatus,
  McpTaskCursorError,
  ORPHANED_TASK,
  type McpTaskStatus,
  type McpTaskTerminalStatus,
  type McpTaskInputRequest,
  type McpTaskError,
  type McpTaskRecord,
  type McpTaskSettlement,
  type McpTaskPage,
  type McpTaskStore,
} from './backend/mcp-task.store.js';
export { InMemoryTaskStore } from './backend/in-memory/in-memory-task.store.js';
