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

/** Why a tool call was refused before its tool ran. @publicApi */
export type McpToolRejection = 'unknown-tool' | 'forbidden' | 'rate-limited' | 'invalid-arguments';

/**
 * A tool call refused before the tool ran: an unknown name, a caller without the tool's scopes,
 * the rate limit, or arguments that fail the input schema (`arguments` is then what the client
 * sent, unvalidated; `tool` is the name as sent for an unknown tool). Guards run with the
 * handler, so a guard's refusal is a failure (`onToolFailed`), not a rejection.
 * @publicApi
 */
export interface McpToolRejectedEvent {
  tool: string;
  reason: McpToolRejection;
  /** What the client is answered: the exception, or the `isError` result's text. */
  error: unknown;
  context: McpRequestContext;
}

/**
 * Tool lifecycle callbacks (docs/tools.md). Implement any of them on a provider decorated with
 * `@McpToolHook()`; hooks run in registration order, and a hook that throws is logged without
 * breaking the call.
 * @publicApi
 */
export interface McpToolHookHandler {
  onToolInvoking?(event: McpToolInvokingEvent): void | Promise<void>;
  onToolCompleted?(event: McpToolCompletedEvent): void | Promise<void>;
  onToolFailed?(event: McpToolFailedEvent): void | Promise<void>;
  onToolRejected?(event: McpToolRejectedEvent): void | Promise<void>;
}
