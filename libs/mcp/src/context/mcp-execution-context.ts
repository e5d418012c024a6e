import type { ArgumentsHost, ExecutionContext } from '@nestjs/common';
import { MCP_CONTEXT_TYPE } from '../mcp.constants.js';
import type { McpRequestContext } from './mcp-request-context.js';

/**
 * True when a guard, interceptor or filter runs for an MCP handler (not an HTTP route).
 * Global HTTP-only enhancers should branch on it.
 * @publicApi
 */
export const isMcpContext = (host: ArgumentsHost): boolean => host.getType<string>() === MCP_CONTEXT_TYPE;

/**
 * The MCP view of an execution context, in the manner of `GqlExecutionContext`.
 *
 * @example
 * ```ts
 * canActivate(context: ExecutionContext) {
 *   if (!isMcpContext(context)) return true;
 *   const mcp = McpExecutionContext.create(context);
 *   return mcp.getContext().sessionId !== undefined;
 * }
 * ```
 * @publicApi
 */
export class McpExecutionContext {
  private constructor(private readonly host: ExecutionContext | ArgumentsHost) {}

  static create(host: ExecutionContext | ArgumentsHost): McpExecutionContext {
    return new McpExecutionContext(host);
  }

  /**
   * The tool or prompt arguments, `{ uri }` for a resource (`{ uri, variables }` for a template),
   * or an `McpCompletionArgs` (`{ name, value, arguments }`) for a completer.
   */
  getArgs<T = Record<string, unknown>>(): T {
    return this.host.getArgByIndex<T>(0);
  }

  /** The request context (session, version, transport, raw request, signal). */
  getContext(): McpRequestContext {
    return this.host.getArgByIndex<McpRequestContext>(1);
  }

  /** The handler's class, when the host is an `ExecutionContext`. */
  getClass<T = unknown>() {
    return (this.host as ExecutionContext).getClass?.<T>();
  }

  /** The handler function, when the host is an `ExecutionContext`. */
  getHandler() {
    return (this.host as ExecutionContext).getHandler?.();
  }
}
