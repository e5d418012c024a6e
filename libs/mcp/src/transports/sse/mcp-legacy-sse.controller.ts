import { Controller, Get, Post, Req, Res, type Type } from '@nestjs/common';
import { McpLegacySseHandler, type McpLegacySsePaths } from './mcp-legacy-sse.handler.js';
import { McpHttpPlatformHost } from '../platform/http-platform.provider.js';
import { releaseWhenHeld } from '../platform/http-platform.js';

/**
 * Builds the controller of the legacy HTTP+SSE transport for paths known at definition time.
 * Its `@Req()` and `@Res()` are the platform's (Express or Fastify); the handler gets Node's own.
 */
export function createMcpLegacySseController(paths: McpLegacySsePaths): Type<unknown> {
  @Controller()
  class McpLegacySseController {
    constructor(
      readonly handler: McpLegacySseHandler,
      readonly platforms: McpHttpPlatformHost,
    ) {}

    @Get(paths.ssePath)
    open(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      const platform = this.platforms.platform;
      const response = platform.response(res);
      // The stream lives as long as the client stays: what the framework keeps of its request goes.
      return releaseWhenHeld(platform, this.handler.open(platform.request(req), response), req, res, response);
    }

    @Post(paths.messagesPath)
    post(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      return this.handler.post(this.platforms.platform.request(req), this.platforms.platform.response(res));
    }
  }
  return McpLegacySseController;
}
