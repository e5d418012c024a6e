import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { McpHttpHandler } from './mcp-http.handler.js';
import { routeMcpRequest } from './mcp-http.controller.js';
import { normalizePath, pathOf } from '../connection/request-path.js';
import { McpLogger } from '../../logging/mcp-logger.js';

/** DI token of the path the direct mount answers. */
export const MCP_DIRECT_PATH = Symbol('MCP_DIRECT_PATH');

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The direct mount (`http: { mount: 'direct' }`): the MCP path is answered from the HTTP
 * server's request listener, before Express and Nest's route pipeline, which otherwise cost more
 * than the whole MCP request. Every other path goes on to the application as before.
 *
 * Guards, interceptors, pipes and filters on MCP handlers still apply (they run in the
 * dispatcher); what the endpoint loses is route-level Nest machinery: middleware, and guards or
 * interceptors on the HTTP endpoint itself.
 */
@Injectable()
export class McpDirectMount implements OnModuleInit {
  private readonly logger = new McpLogger('McpHttp');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly handler: McpHttpHandler,
    @Inject(MCP_DIRECT_PATH) private readonly path: string,
  ) {}

  onModuleInit(): void {
    const server = this.adapterHost?.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) {
      this.logger.warn('No HTTP server: the direct MCP mount is not installed');
      return;
    }
    const application = server.listeners('request') as RequestListener[];
    const path = normalizePath(this.path);
    // A path with a query never matches a request's path (`pathOf` drops it), exactly or not.
    const exact = path.includes('?') ? null : path;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // The URL as clients send it (the path exactly, no query) matches without being normalized.
      if (req.url !== exact && normalizePath(pathOf(req.url)) !== path) {
        for (const listener of application) listener.call(server, req, res);
      } else if (req.method === 'POST') {
        // Read, then posted by the handler itself: no continuation of the mount's own.
        this.handler.readBody(req, res);
      } else void routeMcpRequest(this.handler, req, res);
    });
  }
}
