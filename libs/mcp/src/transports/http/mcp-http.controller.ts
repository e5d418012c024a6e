import { All, Controller, Req, Res, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpHandler } from './mcp-http.handler.js';
import { McpHttpPlatformHost } from '../platform/http-platform.provider.js';
import { releaseWhenHeld, type McpHttpPlatform } from '../platform/http-platform.js';

/**
 * Builds the Streamable HTTP controller for a path known at module definition time. It is a
 * real Nest controller, so `@UseGuards()` on it (or global guards) protect the endpoint. Its
 * `@Req()` and `@Res()` are the platform's (Express or Fastify); the handler gets Node's own.
 *
 * One route takes every method and dispatches on it, as the direct mount does: Fastify refuses
 * a catch-all route beside routes of single methods on the same path, and the methods the
 * endpoint does not serve must still be answered by it (405 with `Allow`, CORS preflights).
 */
export function createMcpHttpController(path: string): Type<unknown> {
  @Controller(path)
  class McpHttpController {
    /** The platform, asked of its host on the first request (it never changes after). */
    private platform?: McpHttpPlatform;

    constructor(
      readonly handler: McpHttpHandler,
      readonly platforms: McpHttpPlatformHost,
    ) {}

    @All()
    serve(@Req() request: unknown, @Res() response: unknown): Promise<void> | void {
      const platform = (this.platform ??= this.platforms.platform);
      const req = platform.nodeObjects ? (request as IncomingMessage) : platform.request(request);
      const res = platform.nodeObjects ? (response as ServerResponse) : platform.response(response);
      const answered = routeMcpRequest(this.handler, req, res);
      if (!answered) {
        platform.routed(request, response);
        return;
      }
      // Once answered, the request and response hold every property they will get.
      const learned = answered.then(() => platform.routed(request, response));
      if (req.method !== 'GET') return learned;
      // A GET answered and still open is the session's event stream: it lives as long as the
      // client stays, so what the framework keeps of the request is dropped now.
      return releaseWhenHeld(platform, learned, request, response, res);
    }
  }
  return McpHttpController;
}

/** Answers one request to the MCP endpoint by its method (both mounts route through here). */
export function routeMcpRequest(
  handler: McpHttpHandler,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> | void {
  switch (req.method) {
    case 'POST':
      return handler.post(req, res);
    case 'GET':
    case 'HEAD':
      return handler.get(req, res);
    case 'DELETE':
      return handler.delete(req, res);
    default:
      handler.methodNotAllowed(req, res);
  }
}
