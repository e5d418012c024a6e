import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { normalizePath, pathOf } from '../connection/request-path.js';
import { protectedResourceMetadata, resourceMetadataPaths } from '../../auth/resource-metadata.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

const ALLOW = 'GET, OPTIONS';

/**
 * Serves the Protected Resource Metadata (RFC 9728) in resource-server mode, at the path-aware
 * well-known URI of the resource and at the root one: unauthenticated, with CORS open to any
 * origin (browser clients must read it before they have a token), GET and OPTIONS only.
 *
 * It answers from the HTTP server's request listener, ahead of the framework, like the direct
 * mount: so it works on both mounts of the MCP endpoint, whatever path the endpoint has, and no
 * application middleware (an authentication middleware, say) can put it behind a login.
 */
@Injectable()
export class McpResourceMetadataMount implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @McpOptions('auth') private readonly options: McpOptionGroup<'auth'>,
  ) {}

  onModuleInit(): void {
    const auth = this.options.auth;
    const server = this.adapterHost?.httpAdapter?.getHttpServer?.() as Server | undefined;
    if (!auth || !server) return;
    const paths = new Set(resourceMetadataPaths(auth.resource).map(normalizePath));
    const body = JSON.stringify(protectedResourceMetadata(auth, this.options.serverInfo.name));
    const application = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (paths.has(normalizePath(pathOf(req.url)))) answer(req, res, body);
      else for (const listener of application) listener.call(server, req, res);
    });
  }
}

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method === 'GET') {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'public, max-age=3600',
    });
    res.end(body);
    return;
  }
  if (req.method === 'OPTIONS') {
    const requested = req.headers['access-control-request-headers'];
    res.writeHead(204, {
      'Access-Control-Allow-Methods': ALLOW,
      'Access-Control-Allow-Headers': typeof requested === 'string' ? requested : 'MCP-Protocol-Version',
      'Access-Control-Max-Age': '86400',
    });
    res.end();
    return;
  }
  const refusal = JSON.stringify({ error: 'method_not_allowed', error_description: 'Use GET' });
  res.writeHead(405, {
    Allow: ALLOW,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(refusal),
  });
  res.end(refusal);
}
