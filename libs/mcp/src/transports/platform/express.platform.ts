import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ExpressRequestShapes } from './express-request-shapes.js';
import { McpLogger } from '../../logging/mcp-logger.js';
import { pathIn } from '../connection/request-path.js';
import type { McpEarlyBodyReader, McpHttpPlatform } from './http-platform.js';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
type RouterLayer = { handle?: { name?: string } };

/** The Express application, as far as the platform uses it. */
export interface ExpressInstance {
  use(fn: Middleware): void;
  router?: { stack?: RouterLayer[] };
}

/** What Express's router leaves on a request it routed, as far as `releaseHeld` lets go of it. */
interface RoutedRequest {
  next?: unknown;
  _parsedUrl?: unknown;
  _parsedOriginalUrl?: unknown;
}

const FRAMEWORK_PARSERS = new Set(['jsonParser', 'urlencodedParser']);

const same = <T>(value: unknown): T => value as T;
const NOTHING = (): void => undefined;

/**
 * `@nestjs/platform-express`: Express's request and response are Node's own (extended), so a
 * controller's `@Req()` and `@Res()` are handed on as they are, with no work per request.
 */
export class McpExpressPlatform implements McpHttpPlatform {
  readonly name = 'express';
  readonly nodeObjects = true;
  readonly request = same<IncomingMessage>;
  readonly response = same<ServerResponse>;
  private readonly logger = new McpLogger('McpHttp');

  private readonly shapes = new ExpressRequestShapes();

  /**
   * Learns what Express adds to the requests of the MCP paths (see `ExpressRequestShapes`): the
   * shapes' own `learn`, bound once, so that hearing a request is no call of the platform's.
   */
  readonly routed: (req: unknown, res: unknown) => void;

  /** `server`: the HTTP server Express listens on, once there is one. */
  constructor(
    private readonly app: ExpressInstance,
    private readonly server: () => Server | undefined = () => undefined,
  ) {
    this.routed = this.shapes.learn.bind(this.shapes) as (req: unknown, res: unknown) => void;
  }

  /**
   * Drops the router's continuation (`req.next`: the closures of its `next`, which hold the
   * router stack's walk and `finalhandler`'s) and parseurl's parsed-URL caches (`parseurl`
   * parses again, should anyone ask once more). Everything a middleware may read when the
   * response finishes stays: `req.route`, `req.params`, `req.baseUrl`, `req.originalUrl`,
   * `res.locals`, and both prototypes. Calling `req.next` after the route answered was never
   * valid: the request is answered by the stream.
   */
  releaseHeld(req: unknown): void {
    const routed = req as RoutedRequest;
    routed.next = undefined;
    if (routed._parsedUrl !== undefined) routed._parsedUrl = undefined;
    if (routed._parsedOriginalUrl !== undefined) routed._parsedOriginalUrl = undefined;
  }

  /**
   * Nest registers its JSON parser during `app.init()`, before any module hook runs, and that
   * parser answers malformed or large bodies with its own non-JSON-RPC errors (and a 100 KB
   * limit). So the reader is added as middleware and then moved ahead of those parsers in the
   * Express router stack. Once it has consumed the body, the parsers see a finished request and
   * step aside.
   */
  readBodiesFirst(paths: ReadonlyMap<string, McpTransportKind>, reader: McpEarlyBodyReader): void {
    const server = this.server();
    if (server) this.shapes.install(server, new Set(paths.keys()));
    const middleware: Middleware = (req, res, next) => {
      const path = req.method === 'POST' ? pathIn(req.url, paths) : undefined;
      if (path !== undefined) reader(req, res, next, paths.get(path)!, NOTHING);
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
