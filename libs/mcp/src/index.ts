// The public API of @nest-mcp/server, for application authors: the module and its options, the
// decorators, what handlers and enhancers see, the services to inject, the exceptions a handler
// throws or catches, the result helpers and the authorization options. Backend authors import
// `@nest-mcp/server/backend`, tests `@nest-mcp/server/testing`. Everything else (the dispatcher,
// the session manager, the registries, the transports and their rejections) is internal and may
// change in any release; public-api.spec.ts pins what each entry exports.

// The module and its options
export { McpModule } from './mcp.module.js';
export type {
  McpModuleOptions,
  McpModuleExtras,
  McpServerInfo,
  McpWireProfile,
  McpSessionsOptions,
  McpTransportOptions,
  McpLimitsOptions,
  McpModernOptions,
  McpDeliveryOptions,
  McpTasksOptions,
  McpSkillsOptions,
} from './interfaces/mcp-module-options.interface.js';
export type { McpTelemetryOptions, McpTelemetryRequest } from './telemetry/mcp-telemetry.options.js';
export {
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpProtocolVersion,
  type McpAnyProtocolVersion,
  type McpProtocolEras,
} from './mcp.constants.js';
// The type of the `backend` option (implementing one: `@nest-mcp/server/backend`).
export type { McpBackend } from './backend/mcp-backend.interface.js';

// Declaring tools, resources and prompts
export { McpTool, McpResource, McpPrompt } from './decorators/index.js';
export { McpApp } from './extensions/apps/mcp-app.decorator.js';
export {
  McpArgs,
  McpCtx,
  McpAuth,
  McpRequest,
  McpSessionId,
  McpProtocolVersionParam,
  McpSignal,
  McpTransport,
} from './decorators/mcp-params.decorator.js';
export type { McpToolOptions } from './interfaces/mcp-tool-options.interface.js';
export type { McpResourceOptions } from './interfaces/mcp-resource-options.interface.js';
export type { McpPromptOptions } from './interfaces/mcp-prompt-options.interface.js';
export type { McpIcon } from './interfaces/mcp-icon.interface.js';
export type { McpCacheHints } from './model/mcp-cache.interface.js';
export type { McpSchemaInput } from './schema/schema.types.js';
export type { UriVariables } from './templates/index.js';
export type {
  McpCompleter,
  McpCompletionArgs,
  McpCompletionContext,
  McpCompletionResult,
} from './interfaces/mcp-completion.interface.js';
export {
  textContent,
  imageContent,
  audioContent,
  resourceLink,
  embeddedTextResource,
  embeddedBlobResource,
  toolText,
  toolError,
  toolStructured,
  type McpContentBlock,
  type McpToolResult,
} from './results/index.js';

// Inside handlers and enhancers
export type { McpRequestContext, McpRoundState } from './context/mcp-request-context.js';
export type { JsonRpcId, JsonRpcErrorObject } from './model/json-rpc.js';
export { McpExecutionContext, isMcpContext } from './context/mcp-execution-context.js';
export type { McpTransportKind } from './model/mcp-transport.interface.js';
export type { McpLogLevel } from './model/log-level.js';
export type {
  McpElicitFormParams,
  McpElicitUrlParams,
  McpElicitResult,
  McpSamplingParams,
  McpSamplingResult,
  McpRoot,
  McpClientRequestOptions,
} from './context/client-request.types.js';
export { McpInputRequiredSignal } from './protocol/modern/input-round.js';

// The errors a handler throws or catches
export * from './errors/index.js';
export { McpBackendUnavailableError } from './backend/mcp-backend.interface.js';

// Services to inject
export { ResourceNotificationService } from './notifications/resource-notification.service.js';
// What a notification reached (also in `@nest-mcp/server/backend`, whose fan-out returns it).
export type { McpDeliveryReport } from './backend/mcp-fanout.js';
export {
  McpResourceService,
  type McpResourceReader,
  type McpTemplateReader,
  type McpResourceRegistration,
  type McpTemplateRegistration,
} from './resources/mcp-resource.service.js';
export { McpServerStats } from './session/mcp-server-stats.js';
export { McpSkills, type McpSkillFiles, type McpSkillRegistration } from './extensions/skills/mcp-skills.service.js';

// Tool hooks
export { McpToolHook } from './hooks/mcp-tool-hook.decorator.js';
export type {
  McpToolHookHandler,
  McpToolInvokingEvent,
  McpToolCompletedEvent,
  McpToolFailedEvent,
  McpToolRejectedEvent,
  McpToolRejection,
} from './hooks/mcp-tool-hook.interface.js';
export { McpToolLoggingHook } from './hooks/mcp-tool-logging.hook.js';
export { McpToolMetricsHook, type McpToolMetrics } from './hooks/mcp-tool-metrics.hook.js';

// Authorization (resource-server mode)
export * from './auth/index.js';

// MCP Apps (the `io.modelcontextprotocol/ui` extension, docs/apps.md): `@McpApp` comes with the
// decorators above; these are its options (the types inside them are reached through them).
export type { McpAppOptions } from './interfaces/mcp-app-options.interface.js';
export type { McpUiResourceMeta, McpUiToolMeta } from './interfaces/mcp-ui-meta.interface.js';

// stdio needs a helper to start
export { runMcpStdio } from './transports/stdio/run-mcp-stdio.js';

// Tasks (long-running tool calls the client polls; docs/tasks.md): `taskSupport` of `@McpTool`,
// `ctx.task` inside one, and what a handler may throw or catch. The task store seam is in
// `@nest-mcp/server/backend`.
export type { McpTaskSupport } from './model/task-support.js';
export type { McpTaskContext } from './context/mcp-request-context.js';
