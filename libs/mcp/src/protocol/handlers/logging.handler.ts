import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpSessionNotFoundException } from '../../errors/mcp-transport.exceptions.js';
import { isLogLevel, MCP_LOG_LEVELS } from '../../model/log-level.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpMethods } from './mcp-methods.js';

/** `logging/setLevel`: the least severe level a session wants in `notifications/message`. */
@Injectable()
export class LoggingHandler implements McpMethodGroup {
  constructor(
    private readonly sessions: McpSessionManager,
    methods: McpMethods,
  ) {
    methods.add(this);
  }

  methods(): Record<string, McpMethodFn> {
    return { 'logging/setLevel': (params, ctx, dispatch) => this.setLevel(params, ctx, dispatch) };
  }

  capability(): [string, Record<string, unknown>] {
    return ['logging', {}];
  }

  private async setLevel(params: Record<string, unknown>, ctx: McpRequestContext, dispatch: McpDispatchContext) {
    const level = params.level;
    if (!isLogLevel(level)) {
      throw new McpInvalidParamsException(`Parameter 'level' must be one of ${MCP_LOG_LEVELS.join(', ')}`);
    }
    // Without a session (stateless HTTP) there is nothing to remember: each request stands alone.
    if (!ctx.session) return {};
    if (!(await this.sessions.update(ctx.session.id, { logLevel: level }))) throw new McpSessionNotFoundException();
    // The copy this connection or batch carries sees it too; later requests read it from the store.
    if (dispatch.session) dispatch.session.logLevel = level;
    return {};
  }
}
