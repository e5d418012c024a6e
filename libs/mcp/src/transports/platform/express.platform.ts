import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpLogger } from '../../logging/mcp-logger.js';
import { normalizePath, pathOf } from '../connection/request-path.js';
import type { McpEarlyBodyReader, McpHttpPlatform } from './http-platform.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
type RouterLayer = { handle?: { name?: string } };

/** The Express application, as far as the platform uses it. */
export interface ExpressInstance {
  use(fn: Middleware): void;
  router?: { stack?: RouterLayer[] };
}

const FRAMEWORK_PARSERS = new Set(['jsonParser', 'urlencodedParser']);

const same = <T>(value: unknown): T => value as T;

/**
 * `@nestjs/platform-express`: Express's request and response are Node's own (extended), so a
 * controller's `@Req()` and `@Res()` are handed on as they are, with no work per request.
 */
export class McpExpressPlatform implements McpHttpPlatform {
  readonly name = 'express';
  readonly request = same<IncomingMessage>;
  readonly response = same<ServerResponse>;
  private readonly logger = new McpLogger('McpHttp');

  constructor(private readonly app: ExpressInstance) {}

  /**
   * Nest registers its JSON parser during `app.init()`, before any module hook runs, and that
   * parser answers malformed or large bodies with its own non-JSON-RPC errors (and a 100 KB
   * limit). So the reader is added as middleware and then moved ahead of those parsers in the
   * Express router stack. Once it has consumed the body, the parsers see a finished request and
   * step aside.
   */
  readBodiesFirst(paths: ReadonlySet<string>, reader: McpEarlyBodyReader): void {
    const middleware: Middleware = (req, res, next) => {
      const path = req.method === 'POST' ? normalizePath(pathOf(req.url)) : undefined;
      if (path !== undefined && paths.has(path)) reader(req, res, path, next, () => undefined);
      else next();
    };
    Object.defineProperty(middleware, 'name', { value: 'mcpBodyReader' });
    this.app.use(middleware);
    const stack = this.app.router?.stack;
    if (!stack) {
      this.logger.warn('Could not place the MCP body reader before the body parsers');
      return;
    }
    const layer = stack.pop()!;
    const firstParser = stack.findIndex((entry) => FRAMEWORK_PARSERS.has(entry.handle?.name ?? ''));
    stack.splice(firstParser === -1 ? stack.length : firstParser, 0, layer);
  }
}
