import type { McpRequestContext } from '../context/mcp-request-context.js';

/** What a completer knows besides the partial value. @publicApi */
export interface McpCompletionContext {
  /** Values the client already chose for the other arguments or template variables. */
  arguments: Record<string, string>;
  /** The `completion/complete` request. */
  request: McpRequestContext;
}

/** A completer's answer: the values, or the values with a total and a more-flag. @publicApi */
export type McpCompletionResult = string[] | { values: string[]; total?: number; hasMore?: boolean };

/**
 * Suggests values for a prompt argument or a template variable. Called with the provider
 * instance as `this` (use a method shorthand to reach injected services).
 * @publicApi
 */
export type McpCompleter = (
  value: string,
  context: McpCompletionContext,
) => McpCompletionResult | Promise<McpCompletionResult>;
