import { SetMetadata } from '@nestjs/common';

export const MCP_TOOL_HOOK_METADATA = 'mcp:tool-hook';

/**
 * Marks a provider as a tool lifecycle hook (implement `McpToolHookHandler`).
 *
 * @example
 * ```ts
 * @McpToolHook()
 * @Injectable()
 * export class AuditHook implements McpToolHookHandler {
 *   onToolCompleted({ tool, durationMs }: McpToolCompletedEvent) { audit.record(tool, durationMs); }
 * }
 * ```
 * @publicApi
 */
export const McpToolHook = (): ClassDecorator => SetMetadata(MCP_TOOL_HOOK_METADATA, true);
