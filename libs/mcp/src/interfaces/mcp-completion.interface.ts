import type { McpRequestContext } from '../context/mcp-request-context.js';

/** What a completer knows besides the partial value. @publicApi */
export interface McpCompletionContext {
  /** Values the client already chose for the other arguments or template variables. */
  arguments: Record<string, string>;
  /** The `completion/complete` request. */
  request: McpRequestContext;
}

/**
 * The arguments of a completion as guards, interceptors and filters see them
 * (`McpExecutionContext.getArgs()` while `getContext().method` is `completion/complete`).
 * @publicApi
 */
export interface McpCompletionArgs {
  /** The prompt argument or template variable being completed. */
  name: string;
  /** What the client typed so far (`''` when it sent nothing). */
  value: string;
  /** Values the client already chose for the other arguments or variables. */
  arguments: Record<string, string>;
}

/** A completer's answer: the values, or the values with a total and a more-flag. @publicApi */
export type McpCompletionResult = string[] | { values: string[]; total?: number; hasMore?: boolean };

/**
 * Suggests values for a prompt argument or a template variable. A declared completer runs as
 * part of its prompt or template: through that method's guards, interceptors and filters (and the
 * global ones), with the provider instance as `this` (a fresh one per request for a
 * request-scoped provider). Use a method shorthand to reach injected services.
 * @publicApi
 */
export type McpCompleter = (
  value: string,
  context: McpCompletionContext,
) => McpCompletionResult | Promise<McpCompletionResult>;
