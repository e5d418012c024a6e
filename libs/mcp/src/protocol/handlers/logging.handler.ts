import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { isLogLevel, MCP_LOG_LEVELS } from '../../logging/log-level.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { McpMethodFn, McpMethodGroup } from './mcp-method.types.js';

/** `logging/setLevel`: the least severe level a session wants in `notifications/message`. */
@Injectable()
export class LoggingHandler implements McpMethodGroup {
  constructor(private readonly sessions: McpSessionManager) {}

  methods(): Record<string, McpMethodFn> {
    return { 'logging/setLevel': (params, ctx) => this.setLevel(params, ctx) };
  }

  capability(): [string, Record<string, unknown>] {
    return ['logging', {}];
  }

  private async setLevel(params: Record<string, unknown>, ctx: McpRequestContext) {
    const level = params.level;
    if (!isLogLevel(level)) {
      throw new McpInvalidParamsException(`Parameter 'level' must be one of ${MCP_LOG_LEVELS.join(', ')}`);
    }
    // Without a session (stateless HTTP) there is nothing to remember: each request stands alone.
    if (ctx.session) {
      await this.sessions.update(ctx.session.id, { logLevel: level });
      (ctx.session as { logLevel?: string }).logLevel = level;
    }
    return {};
  }
}
