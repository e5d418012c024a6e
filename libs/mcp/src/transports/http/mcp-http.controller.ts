import { All, Controller, Delete, Get, Post, Req, Res, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpHandler } from './mcp-http.handler.js';

/**
 * Builds the Streamable HTTP controller for a path known at module definition time. It is a
 * real Nest controller, so `@UseGuards()` on it (or global guards) protect the endpoint.
 */
export function createMcpHttpController(path: string): Type<unknown> {
  @Controller(path)
  class McpHttpController {
    constructor(readonly handler: McpHttpHandler) {}

    @Post()
    post(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
      return this.handler.post(req, res);
    }

    @Get()
    get(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
      return this.handler.get(req, res);
    }

    @Delete()
    delete(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
      return this.handler.delete(req, res);
    }

    @All()
    other(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
      this.handler.methodNotAllowed(req, res);
    }
  }
  return McpHttpController;
}
