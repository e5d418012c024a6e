import type { McpRequestContext } from '../context/mcp-request-context.js';
import type { McpCompleter, McpCompletionArgs } from '../interfaces/mcp-completion.interface.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';

/**
 * `complete` called the way every handler is, `(args, ctx)` with `args` an
 * {@link McpCompletionArgs}, and `this` passed on to it (the provider of a declared completer).
 */
export function completerAsHandler(complete: McpCompleter) {
  return function (this: unknown, args: unknown, ctx: McpRequestContext) {
    const { value, arguments: chosen } = args as McpCompletionArgs;
    return complete.call(this, value, { arguments: chosen, request: ctx });
  };
}

/** A completer registered at runtime (no provider, no enhancers), as a registry handler. */
export function runtimeCompleter(complete: McpCompleter): McpHandlerFn {
  const call = completerAsHandler(complete);
  return async (args, ctx) => call.call(undefined, args, ctx);
}
