import type { McpRequestContext } from '../context/mcp-request-context.js';

/** A tool call about to run (its arguments already validated). @publicApi */
export interface McpToolInvokingEvent {
  tool: string;
  arguments: unknown;
  context: McpRequestContext;
}

/** A tool call that returned a result without `isError`. @publicApi */
export interface McpToolCompletedEvent extends McpToolInvokingEvent {
  result: unknown;
  durationMs: number;
}

/**
 * A tool call that threw, or returned an `isError` result (then `error` carries its text).
 * @publicApi
 */
export interface McpToolFailedEvent extends McpToolInvokingEvent {
  error: unknown;
  durationMs: number;
}

/**
 * Tool lifecycle callbacks (spec 9.5). Implement any of them on a provider decorated with
 * `@McpToolHook()`; hooks run in registration order, and a hook that throws is logged without
 * breaking the call.
 * @publicApi
 */
export interface McpToolHookHandler {
  onToolInvoking?(event: McpToolInvokingEvent): void | Promise<void>;
  onToolCompleted?(event: McpToolCompletedEvent): void | Promise<void>;
  onToolFailed?(event: McpToolFailedEvent): void | Promise<void>;
}
