import type { ParamData } from '@nestjs/common';
import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator.js';
import { McpParamtype } from '../decorators/mcp-paramtype.enum.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';

/** Maps MCP parameter decorators to values of the `(args, ctx)` call. */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: unknown[]): unknown {
    const [payload, ctx] = args as [Record<string, unknown> | undefined, McpRequestContext];
    switch (type as McpParamtype) {
      case McpParamtype.ARGS:
        return typeof data === 'string' && payload ? payload[data] : payload;
      case McpParamtype.CONTEXT:
        return ctx;
      case McpParamtype.SESSION_ID:
        return ctx?.sessionId;
      case McpParamtype.PROTOCOL_VERSION:
        return ctx?.protocolVersion;
      case McpParamtype.TRANSPORT:
        return ctx?.transport;
      case McpParamtype.REQUEST:
        return ctx?.request;
      case McpParamtype.SIGNAL:
        return ctx?.signal;
      case McpParamtype.AUTH:
        return typeof data === 'string' ? (ctx?.auth as Record<string, unknown> | undefined)?.[data] : ctx?.auth;
      default:
        return undefined;
    }
  }
}
