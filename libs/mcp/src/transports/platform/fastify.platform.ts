import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathIn } from '../connection/request-path.js';
import type { McpEarlyBodyReader, McpHttpPlatform } from './http-platform.js';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';

/** A Fastify request, as far as the platform uses it (the library does not import `fastify`). */
interface FastifyRequestLike {
  readonly raw: IncomingMessage;
  /** Fastify's view of the headers; assigning it overlays `raw.headers` for Fastify alone. */
  headers: Readonly<Record<string, unknown>>;
}

/** A Fastify reply, as far as the platform uses it. */
interface FastifyReplyLike {
  readonly raw: ServerResponse;
  hijack(): unknown;
}

type OnRequestHook = (request: FastifyRequestLike, reply: FastifyReplyLike, done: () => void) => void;

/** The Fastify instance, as far as the platform uses it. */
export interface FastifyInstance {
  addHook(name: 'onRequest', hook: OnRequestHook): unknown;
}

/**
 * What Fastify is shown of a request whose body the transport has read: no body, so it runs no
 * content-type parser (which would wait for bytes already consumed, or answer 413, 415 or 400
 * with its own errors). Only Fastify's overlay changes: `request.raw.headers`, which the
 * transport reads, keeps the real values.
 */
const BODY_TAKEN: Readonly<Record<string, undefined>> = Object.freeze({
  'content-type': undefined,
  'content-length': undefined,
  'transfer-encoding': undefined,
});

/**
 * `@nestjs/platform-fastify`: a controller's `@Req()` is a Fastify request and its `@Res()` a
 * Fastify reply. The transport works on Node's request and response under them, and hijacks the
 * reply first, so that Fastify neither buffers nor sends anything of its own (streams are
 * written with back-pressure through `reply.raw`).
 */
export class McpFastifyPlatform implements McpHttpPlatform {
  readonly name = 'fastify';
  readonly nodeObjects = false;

  constructor(private readonly fastify: FastifyInstance) {}

  request(req: unknown): IncomingMessage {
    return (req as FastifyRequestLike).raw;
  }

  response(res: unknown): ServerResponse {
    const reply = res as FastifyReplyLike;
    reply.hijack();
    return reply.raw;
  }

  /**
   * Nothing to let go: a hijacked reply's request and reply are plain class instances, and what
   * Fastify keeps of them until the response finishes (its `onResponse` hooks, the request's
   * logger) is what its hooks run on when the stream ends.
   */
  releaseHeld(): void {}

  /** Fastify's request and reply are class instances that share their hidden classes already. */
  routed(): void {}

  /**
   * The reader runs in an `onRequest` hook, before Fastify parses anything (its body limit and
   * content-type parsers come later, in the request's lifecycle); having read the body, it hides
   * it from Fastify (`BODY_TAKEN`), as it hides the body of any other method on those paths. A request it refused is hijacked, so that Fastify writes
   * nothing more and runs no route.
   */
  readBodiesFirst(paths: ReadonlyMap<string, McpTransportKind>, reader: McpEarlyBodyReader): void {
    this.fastify.addHook('onRequest', (request, reply, done) => {
      const raw = request.raw;
      const path = pathIn(raw.url, paths);
      if (path === undefined) {
        done();
        return;
      }
      if (raw.method !== 'POST') {
        // Answered without a body (405 for a PUT, say), not with a parser's 415 or 400.
        request.headers = BODY_TAKEN;
        done();
        return;
      }
      reader(
        raw,
        reply.raw,
        () => {
          request.headers = BODY_TAKEN;
          done();
        },
        paths.get(path)!,
        () => {
          reply.hijack();
          done();
        },
      );
    });
  }
}
