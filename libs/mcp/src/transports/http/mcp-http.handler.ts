import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  LAST_EVENT_ID_HEADER,
  PROTOCOL_VERSION_HEADER,
  SESSION_ID_HEADER,
  type McpProtocolVersion,
} from '../../mcp.constants.js';
import { MCP_NOTIFICATION_BUS, type McpNotificationBus } from '../../notifications/mcp-notification.bus.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { McpDispatcher } from '../../protocol/mcp.dispatcher.js';
import type { McpDispatchContext } from '../../protocol/mcp-dispatch-context.js';
import {
  isErrorResponse,
  isInitializeMessage,
  isValidId,
  JsonRpcErrorCode,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from '../../protocol/json-rpc.js';
import { isSupportedProtocolVersion } from '../../protocol/protocol-version.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { McpSessionRecord } from '../../session/mcp-session.interface.js';
import { readRequestBody } from './body-reader.js';
import { MCP_RAW_BODY, readJsonPayload, rejectBody, type McpHttpRequest } from './json-payload.js';
import { rejectHttp } from './http-rejection.js';
import { negotiateAccept } from './media-type.js';
import { SseConnection } from './sse-connection.js';
import { PostStream, PostStreamLog } from './post-stream.log.js';
import { answerPreflight } from './cors.js';
import { McpOriginPolicy } from '../shared/origin-policy.js';
import { TOO_MANY_SESSIONS } from '../../errors/mcp-protocol.exceptions.js';
import { SseStream } from './sse.stream.js';

const ALLOW = { Allow: 'GET, POST, DELETE' };

/** Errors that mean "this is not a valid JSON-RPC message" get HTTP 400 (DECISIONS D2). */
const FRAMING_ERRORS = new Set<number>([JsonRpcErrorCode.ParseError, JsonRpcErrorCode.InvalidRequest]);

/**
 * The Streamable HTTP transport (MCP 2025-11-25, DECISIONS D2/D5): header checks, sessions,
 * JSON or SSE answers. It frames bytes and leaves every protocol decision to the dispatcher.
 */
@Injectable()
export class McpHttpHandler {
  private readonly logger = new Logger('McpHttp');

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly sessions: McpSessionManager,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
    private readonly originPolicy: McpOriginPolicy,
    private readonly postStreams: PostStreamLog,
  ) {}

  /**
   * Runs before any framework body parser: refuses foreign origins and oversized bodies
   * without reading them, and keeps the raw bytes for `post()`.
   */
  readBody(req: McpHttpRequest, res: ServerResponse, next: () => void): void {
    if (!this.originPolicy.admit(req, res)) return;
    readRequestBody(req, this.options.maxBodyBytes).then(
      (body) => {
        req[MCP_RAW_BODY] = body;
        next();
      },
      (error: unknown) => rejectBody(res, error, this.options.maxBodyBytes),
    );
  }

  async post(req: McpHttpRequest, res: ServerResponse): Promise<void> {
    try {
      await this.handlePost(req, res);
    } catch (error) {
      this.fail(res, error);
    }
  }

  async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.handleGet(req, res);
    } catch (error) {
      this.fail(res, error);
    }
  }

  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.handleDelete(req, res);
    } catch (error) {
      this.fail(res, error);
    }
  }

  /** Any other HTTP method: CORS preflights from allowed origins, 405 for the rest. */
  methodNotAllowed(req: IncomingMessage, res: ServerResponse): void {
    if (!this.originPolicy.admit(req, res)) return;
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      answerPreflight(req, res);
      return;
    }
    rejectHttp(res, 405, JsonRpcErrorCode.SessionRequired, 'Method not allowed', 'Use POST, GET or DELETE', {
      headers: ALLOW,
    });
  }

  private async handlePost(req: McpHttpRequest, res: ServerResponse): Promise<void> {
    if (!this.originPolicy.admit(req, res)) return;
    const accept = negotiateAccept(req.headers.accept);
    if (!accept.json && !accept.sse) {
      return this.reject(res, 406, 'Not Acceptable', 'Accept must allow application/json or text/event-stream');
    }
    const body = await readJsonPayload(req, res, this.options.maxBodyBytes);
    if (!body) return;
    const payload = body.value;
    // The header is ignored on initialize itself: that is where the version is negotiated.
    const headerVersion = isInitializeMessage(payload) ? undefined : this.headerVersion(req, res);
    if (headerVersion === false) return;

    const session = await this.sessionForPost(req, res, payload);
    if (session === false) return;

    let stream: PostStream | undefined;
    const ctx: McpDispatchContext = {
      transport: 'streamable-http',
      request: req,
      sessionsEnabled: this.options.sessions,
      session,
      headerProtocolVersion: headerVersion,
      sendRelated: (message) => {
        if (accept.sse) {
          stream ??= this.openPostStream(res, ctx.session);
          stream.send(message);
        } else {
          this.routeToSessionStream(ctx.session, message);
        }
      },
    };
    const answer = await this.dispatcher.dispatch(payload, ctx);

    if (stream) {
      if (answer) stream.send(answer);
      stream.finish();
      return;
    }
    if (!answer) {
      res.writeHead(202).end();
      return;
    }
    if (!accept.json) {
      const sse = this.openPostStream(res, ctx.session);
      sse.send(answer);
      sse.finish();
      return;
    }
    const status = statusFor(answer);
    if (status === 503) res.setHeader('Retry-After', '5');
    this.writeJson(res, status, answer, ctx.session);
  }

  private async handleGet(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.originPolicy.admit(req, res)) return;
    if (req.method === 'HEAD' || !this.options.sessions) {
      return rejectHttp(
        res,
        405,
        JsonRpcErrorCode.SessionRequired,
        'Method not allowed',
        this.options.sessions
          ? 'HEAD is not supported on the MCP endpoint'
          : 'This server is stateless: there is no GET stream',
        { headers: this.options.sessions ? ALLOW : { Allow: 'POST' } },
      );
    }
    if (!negotiateAccept(req.headers.accept).sse) {
      return this.reject(res, 406, 'Not Acceptable', 'GET needs Accept: text/event-stream');
    }
    if (this.headerVersion(req, res) === false) return;
    const session = await this.requireSession(req, res, null);
    if (!session) return;

    const header = req.headers[LAST_EVENT_ID_HEADER];
    const lastEventId = typeof header === 'string' ? header : undefined;
    const stream = this.newSseStream(res, session);
    const connection = new SseConnection(stream);
    // Resuming a POST answer: replay it and carry the rest of it (its response included).
    const resumed = lastEventId === undefined ? undefined : this.postStreams.find(session.id, lastEventId);
    if (resumed) {
      resumed.stream.resume(connection, resumed.afterSeq);
      return;
    }
    stream.onClose(() => this.sessions.detachConnection(session.id, connection));
    await this.bus.attach(session.id, connection, lastEventId);
  }

  private async handleDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.originPolicy.admit(req, res)) return;
    if (!this.options.sessions) {
      return rejectHttp(
        res,
        405,
        JsonRpcErrorCode.SessionRequired,
        'Method not allowed',
        'This server is stateless: there are no sessions to end',
        { headers: { Allow: 'POST' } },
      );
    }
    if (this.headerVersion(req, res) === false) return;
    const session = await this.requireSession(req, res, null);
    if (!session) return;
    await this.sessions.end(session.id, 'deleted');
    res.writeHead(204).end();
  }

  /** Which session a POST belongs to; `false` when the answer was already sent. */
  private async sessionForPost(
    req: IncomingMessage,
    res: ServerResponse,
    payload: unknown,
  ): Promise<McpSessionRecord | undefined | false> {
    if (!this.options.sessions) return undefined;
    if (isInitializeMessage(payload)) {
      // Never adopt a client-chosen id: an unknown id on initialize is ignored and a new one
      // is minted; a live one makes the dispatcher refuse a second initialize.
      return this.sessions.resolve(req.headers[SESSION_ID_HEADER]);
    }
    return (await this.requireSession(req, res, readableId(payload))) ?? false;
  }

  private async requireSession(
    req: IncomingMessage,
    res: ServerResponse,
    id: JsonRpcId | null,
  ): Promise<McpSessionRecord | undefined> {
    const header = req.headers[SESSION_ID_HEADER];
    if (header === undefined) {
      this.reject(
        res,
        400,
        'Session required',
        'Send the MCP-Session-Id header returned by initialize (or initialize first)',
        id,
      );
      return undefined;
    }
    const session = await this.sessions.resolve(header);
    if (!session) {
      rejectHttp(
        res,
        404,
        JsonRpcErrorCode.SessionNotFound,
        'Session not found',
        'The session is unknown or has expired: initialize a new one',
        { id },
      );
    }
    return session;
  }

  /** The header's version; `undefined` when absent; `false` when refused (400 sent). */
  private headerVersion(req: IncomingMessage, res: ServerResponse): McpProtocolVersion | undefined | false {
    const value = req.headers[PROTOCOL_VERSION_HEADER];
    if (value === undefined) return undefined;
    if (isSupportedProtocolVersion(value)) return value;
    if (!this.options.validateProtocolVersionHeader) return undefined;
    this.reject(
      res,
      400,
      'Unsupported protocol version',
      `MCP-Protocol-Version '${String(value).slice(0, 64)}' is not supported (supported: 2025-11-25, 2025-06-18, 2025-03-26)`,
    );
    return false;
  }

  /**
   * Opens the SSE answer of a POST. With a session it is logged, so a client that loses the
   * connection can resume it with `Last-Event-ID`; without one it only writes.
   */
  private openPostStream(res: ServerResponse, session: McpSessionRecord | undefined): PostStream {
    const sse = this.newSseStream(res, session);
    const stream = session ? this.postStreams.open(session.id) : new PostStream(this.options.replayBufferSize);
    stream.attach(new SseConnection(sse));
    return stream;
  }

  private newSseStream(res: ServerResponse, session: McpSessionRecord | undefined): SseStream {
    const stream = new SseStream(res, {
      keepAliveMs: this.options.sseKeepAliveMs,
      maxBufferedBytes: this.options.maxStreamBufferBytes,
    });
    stream.open(session ? { 'MCP-Session-Id': session.id } : undefined);
    return stream;
  }

  /** A JSON-only client cannot take related messages on its POST: use its GET stream. */
  private routeToSessionStream(session: McpSessionRecord | undefined, message: JsonRpcMessage): void {
    const connection = session && this.sessions.getConnection(session.id);
    if (!connection?.send(message)) {
      this.logger.debug(`Dropped a related message: the client accepts JSON only and has no open GET stream`);
    }
  }

  private writeJson(
    res: ServerResponse,
    status: number,
    answer: JsonRpcResponse | JsonRpcResponse[],
    session: McpSessionRecord | undefined,
  ): void {
    const body = JSON.stringify(answer);
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    };
    if (session) headers['MCP-Session-Id'] = session.id;
    res.writeHead(status, headers).end(body);
  }

  private reject(res: ServerResponse, status: number, message: string, detail: string, id: JsonRpcId | null = null) {
    rejectHttp(res, status, JsonRpcErrorCode.SessionRequired, message, detail, { id });
  }

  private fail(res: ServerResponse, error: unknown): void {
    this.logger.error(`MCP HTTP request failed: ${(error as Error)?.stack ?? String(error)}`);
    rejectHttp(res, 500, JsonRpcErrorCode.InternalError, 'Internal error', 'The server failed to handle the request');
  }
}

const readableId = (payload: unknown): JsonRpcId | null => {
  const id = (payload as { id?: unknown } | null)?.id;
  return isValidId(id) ? id : null;
};

const statusFor = (answer: JsonRpcResponse | JsonRpcResponse[]): number => {
  if (Array.isArray(answer) || !isErrorResponse(answer)) return 200;
  if (FRAMING_ERRORS.has(answer.error.code)) return 400;
  return answer.error.message === TOO_MANY_SESSIONS ? 503 : 200;
};
