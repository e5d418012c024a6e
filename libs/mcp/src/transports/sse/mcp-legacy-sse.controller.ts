import { Controller, Get, Post, Req, Res, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpLegacySseHandler, type McpLegacySsePaths } from './mcp-legacy-sse.handler.js';

/** Builds the controller of the legacy HTTP+SSE transport for paths known at definition time. */
export function createMcpLegacySseController(paths: McpLegacySsePaths): Type<unknown> {
  @Controller()
  class McpLegacySseController {
    constructor(readonly handler: McpLegacySseHandler) {}

    @Get(paths.ssePath)
    open(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
      return this.handler.open(req, res);
    }

    @Post(paths.messagesPath)
    post(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
      return this.handler.post(req, res);
    }
  }
  return McpLegacySseController;
}
