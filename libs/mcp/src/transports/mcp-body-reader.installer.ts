import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { MCP_LEGACY_SSE_PATHS, type McpLegacySsePaths } from './sse/mcp-legacy-sse.handler.js';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_BODY_PATHS } from './http/mcp-http.tokens.js';
import { McpHttpHandler } from './http/mcp-http.handler.js';
import { normalizePath, pathOf } from './http/request-path.js';
import { McpLogger } from '../logging/mcp-logger.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
type RouterLayer = { handle?: { name?: string } };

const FRAMEWORK_PARSERS = new Set(['jsonParser', 'urlencodedParser']);

/**
 * Puts the MCP body reader in front of Express's body parsers for POSTs to the MCP paths.
 *
 * Nest registers its JSON parser during `app.init()`, before any module hook runs, and that
 * parser answers malformed or large bodies with its own non-JSON-RPC errors (and a 100 KB
 * limit). So the reader is added as middleware and then moved ahead of those parsers in the
 * Express router stack. Once it has consumed the body, the parsers see a finished request and
 * step aside.
 */
@Injectable()
export class McpBodyReaderInstaller implements OnModuleInit {
  private readonly logger = new McpLogger('McpHttp');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly handler: McpHttpHandler,
    @Inject(MCP_BODY_PATHS) private readonly paths: string[],
    @Optional() @Inject(MCP_LEGACY_SSE_PATHS) private readonly legacy?: McpLegacySsePaths,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter || adapter.getType() !== 'express') return;
    const app = adapter.getInstance<{ use(fn: Middleware): void; router?: { stack?: RouterLayer[] } }>();
    const paths = new Set(this.paths.map(normalizePath));
    const messages = this.legacy && normalizePath(this.legacy.messagesPath);
    const reader: Middleware = (req, res, next) => {
      const path = req.method === 'POST' ? normalizePath(pathOf(req.url)) : undefined;
      if (path !== undefined && paths.has(path)) {
        this.handler.readBody(req, res, next, path === messages ? 'sse' : 'streamable-http');
      } else {
        next();
      }
    };
    Object.defineProperty(reader, 'name', { value: 'mcpBodyReader' });
    app.use(reader);
    const stack = app.router?.stack;
    if (!stack) {
      this.logger.warn('Could not place the MCP body reader before the body parsers');
      return;
    }
    const layer = stack.pop()!;
    const firstParser = stack.findIndex((entry) => FRAMEWORK_PARSERS.has(entry.handle?.name ?? ''));
    stack.splice(firstParser === -1 ? stack.length : firstParser, 0, layer);
  }
}
