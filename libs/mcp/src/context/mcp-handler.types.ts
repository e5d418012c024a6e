import type { McpRequestContext } from './mcp-request-context.js';

/** A discovered or registered handler, already wrapped with Nest's enhancers. */
export type McpHandlerFn = (args: unknown, ctx: McpRequestContext) => Promise<unknown>;
