import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpPostStream } from '../../backend/mcp-post-streams.js';
import type { McpSessionRecord } from '../../backend/mcp-session.store.js';
import { McpMethodNotAllowedException, McpNotAcceptableException } from '../../errors/mcp-transport.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { LAST_EVENT_ID_HEADER } from '../../mcp.constants.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import { isValidId, type JsonRpcId } from '../../model/json-rpc.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';
import { isInitializeFrame, type Inbound } from '../../protocol/inbound/inbound.js';
import type { McpAnswer } from '../../protocol/mcp-answer.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpInboundPort } from '../../protocol/dispatch/inbound-port.js';
import { McpAuthenticator } from '../../auth/mcp-authenticator.js';
import { closeWhenExpired } from '../../auth/token-expiry.js';
import { McpOriginPolicy } from '../connection/origin-policy.js';
import { answerPreflight } from '../connection/cors.js';
import { rejectHttp } from '../connection/http-rejection.js';
import type { McpServedTransport } from '../connection/served-transport.js';
import { readRequestBodyInto } from './body-reader.js';
import { MCP_RAW_BODY, readJsonPayload, rejectBody, type McpHttpRequest } from './json-payload.js';
import { negotiateAccept, type AcceptNegotiation } from './media-type.js';
import { McpHttpSessionBinding } from './http-session-binding.js';
import { McpHttpStreams } from './http-streams.js';

const ALLOW_ALL = 'GET, POST, DELETE';
const ALLOW_STATELESS = 'POST';
const NOTHING = (): void => undefined;

/** What a browser that opens the endpoint is told (it sends `Accept: text/html`). */
const BROWSER_HINT =
  'This is a Model Context Protocol (MCP) endpoint: point an MCP client at this URL (see https://modelcontextprotocol.io). GET opens its event stream and needs Accept: text/event-stream';

/**
 * The Streamable HTTP transport (MCP 2025-11-25; statuses and sessions as
 * docs/decisions/0002-error-codes-and-http-statuses.md and docs/decisions/0004-sessions.md say):
 * header checks, sessions, JSON or SSE answers. It frames bytes and leaves every protocol decision to the dispatcher;
 * every rejection is an exception from errors/mcp-transport.exceptions.ts.
 */
@Injectable()
export class McpHttpHandler implements McpServedTransport {
  readonly kind = 'streamable-http';
  constructor(
    @McpOptions('transport') private readonly options: McpOptionGroup<'transport'>,
    private readonly inbound: McpInboundPort,
    private readonly binding: McpHttpSessionBinding,
    private readonly streams: McpHttpStreams,
    private readonly originPolicy: McpOriginPolicy,
    private readonly authenticator: McpAuthenticator,
  ) {}

  /** At shutdown: the POST answer streams close (the GET streams are the backend's). */
  drain(): void {
    this.streams.drain();
  }

  close(): void {}

  heldStreams(): number {
    return this.streams.heldGets;
  }

  /**
   * Runs before any framework body parser: refuses foreign origins and oversized bodies
   * without reading them, and keeps the raw bytes for `post()`. `transport` is the one the POST
   * is for (the legacy HTTP+SSE `POST /messages` is read here too). `next` carries the request on
   * once its bytes are kept; without it, the request is this endpoint's POST and goes to `post`
   * at once (the direct mount: nothing runs between the body and the handler). `refused` hears
   * that the request was answered here (or dropped, when the client aborted the upload).
   */
  readBody(
    req: McpHttpRequest,
    res: ServerResponse,
    next?: () => void,
    transport: McpTransportKind = 'streamable-http',
    refused: () => void = NOTHING,
  ): void {
    if (!this.originPolicy.admit(req, res, transport)) {
      refused();
      return;
    }
    // Called back, not chained to a promise: no promise and no microtask hop per POST.
    readRequestBodyInto(
      req,
      this.options.maxBodyBytes,
      next
        ? (body) => {
            req[MCP_RAW_BODY] = body;
            next();
          }
        : // Bound, not wrapped: `post` takes the bytes itself.
          this.post.bind(this, req, res),
      (error) => {
        const refusal = rejectBody(res, error, this.options.maxBodyBytes);
        if (refusal) this.inbound.refused(refusal, transport, req);
        refused();
      },
    );
  }

  /**
   * A POST, from its admission to its answer. One async function for the whole request (the
   * `guarded` catch, the era's steps and the JSON answer inlined, a modern request's state set up
   * by a plain function): a request suspends only where it waits, and each wait is one resumption.
   * `bytes` is the request's body when the caller read it already (`readBody` without `next`).
   */
  async post(req: McpHttpRequest, res: ServerResponse, bytes?: Buffer): Promise<void> {
    // The bytes the early reader handed over directly (the direct mount's POST).
    if (bytes !== undefined) req[MCP_RAW_BODY] = bytes;
    try {
      // The early body reader admitted the request already (its bytes are there): once per POST.
      if (req[MCP_RAW_BODY] === undefined && !this.originPolicy.admit(req, res)) return;
      const receivedAt = this.inbound.receivedNow();
      // Every request is authorized on its own token, never on its session (MCP 2025-11-25).
      // Awaited only when there is something to verify: without auth the principal is undefined.
      const auth = this.authenticator.enabled ? await this.authenticator.authenticate(req) : undefined;
      const accept = negotiateAccept(req.headers.accept);
      if (!accept.json && !accept.sse) {
        throw new McpNotAcceptableException('Accept must allow application/json or text/event-stream');
      }
      const read = readJsonPayload(req, res, this.options.maxBodyBytes, (refusal) =>
        this.inbound.refused(refusal, 'streamable-http', req),
      );
      // The early body reader's bytes are parsed at once; only a body still to be read is awaited.
      const body = read instanceof Promise ? await read : read;
      if (!body) return;
      const payload = body.value;
      if (auth?.expiresAt !== undefined) this.endAtExpiry(res, auth, payload);
      // Classified once, here: the era of the frame, and a modern request's envelope and headers.
      const inbound = this.inbound.classify(payload, { eras: this.options.protocol, headers: req.headers });
      if (inbound.era === 'modern') {
        const modern = this.modernPost(req, res, inbound, accept, auth, receivedAt);
        const answer = await this.inbound.dispatch(inbound, modern.ctx);
        modern.answered = true;
        this.writeAnswer(res, answer, modern.stream, accept, undefined, auth);
        return;
      }
      // The header is not read on initialize itself: that is where the version is negotiated.
      const initialize = isInitializeFrame(inbound);

      let stream: McpPostStream | undefined;
      const ctx: McpDispatchContext = {
        transport: 'streamable-http',
        request: req,
        sessionsEnabled: this.options.sessions,
        auth,
        receivedAt,
        sendRelated: (json) => {
          if (accept.sse) {
            stream ??= this.streams.openPostAnswer(res, ctx.session, auth);
            stream.send(json);
            return true;
          }
          // A JSON-only client can take related messages only on its GET stream.
          return ctx.session !== undefined && this.streams.sendToSession(ctx.session.id, json);
        },
      };
      // The header is checked and the session looked up by the dispatcher's call: inside the
      // message's SERVER span, so a request refused for either has its span like any other.
      // (Bound, not wrapped in a closure: the binding's call is the only one.)
      const lookup = this.binding.bindPost.bind(this.binding, ctx, req, initialize, auth);
      let answer: McpAnswer | undefined;
      try {
        answer = await this.inbound.dispatch(inbound, ctx, lookup);
      } catch (error) {
        // Answered with the request's id echoed (read only now: a request that was served needs none).
        throw new HttpRejection(error, readableId(payload));
      }
      this.writeAnswer(res, answer, stream, accept, ctx.session, auth);
    } catch (error) {
      this.answerRejection(req, res, error);
    }
  }

  async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.guarded(req, res, () => this.handleGet(req, res));
  }

  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.guarded(req, res, () => this.handleDelete(req, res));
  }

  /** Any other HTTP method: CORS preflights from allowed origins, 405 for the rest. */
  methodNotAllowed(req: IncomingMessage, res: ServerResponse): void {
    if (!this.originPolicy.admit(req, res)) return;
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      answerPreflight(req, res);
      return;
    }
    const refusal = new McpMethodNotAllowedException(this.allow, 'Use POST, GET or DELETE');
    rejectHttp(res, refusal);
    this.inbound.refused(refusal, 'streamable-http', req);
  }

  /** Legacy sessions exist: session management is on and the legacy era is served. */
  private get hasSessions(): boolean {
    return this.options.sessions && this.options.protocol !== 'modern';
  }

  private get allow(): string {
    return this.hasSessions ? ALLOW_ALL : ALLOW_STATELESS;
  }

  /** The answer of a POST: on its SSE stream when one was opened, else JSON (or SSE when JSON is not acceptable). */
  private writeAnswer(
    res: ServerResponse,
    answer: McpAnswer | undefined,
    stream: McpPostStream | undefined,
    accept: AcceptNegotiation,
    session: McpSessionRecord | undefined,
    auth: McpPrincipal | undefined,
  ): void {
    if (stream) {
      if (answer) stream.send(answer.json);
      stream.finish();
    } else if (res.writableEnded) {
      // Answered already: its token expired while it was served (`endAtExpiry`).
    } else if (!answer) {
      res.writeHead(202).end();
    } else if (!accept.json && answer.status === 200) {
      // A refusal with its own status (400, 404, ...) is plain JSON: an event stream rides on 200.
      const sse = this.streams.openPostAnswer(res, session, auth);
      sse.send(answer.json);
      sse.finish();
    } else {
      const headers: Record<string, string | number> = {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(answer.json),
        ...answer.headers,
      };
      if (session) headers['MCP-Session-Id'] = session.id;
      res.writeHead(answer.status, headers).end(answer.json);
    }
  }

  /**
   * A modern-era POST (MCP 2026-07-28): stateless (no session is minted, echoed or looked up),
   * its headers checked against its body before anything runs, answered with JSON or an SSE
   * stream scoped to the request; closing that stream cancels the request. Sets up what `post`
   * dispatches: the context, and the state its answer is written with.
   */
  private modernPost(
    req: IncomingMessage,
    res: ServerResponse,
    inbound: Inbound,
    accept: AcceptNegotiation,
    auth: McpPrincipal | undefined,
    receivedAt: number | undefined,
  ): ModernPost {
    // The answer stream closing before the answer was written cancels the request, whichever
    // side closed it: the client, or the server cutting off a slow consumer (whose response
    // may still finish, cleanly, once the client drains it).
    let dropped = false;
    let drop: (() => void) | undefined;
    const onClosed = () => {
      if (post.answered || dropped) return;
      dropped = true;
      drop?.();
    };
    // A response closes once: `on` spares `once`'s wrapper, and `onClosed` acts once anyway.
    res.on('close', onClosed);
    const post: ModernPost = {
      answered: false,
      stream: undefined,
      ctx: {
        transport: 'streamable-http',
        request: req,
        sessionsEnabled: false,
        auth,
        receivedAt,
        onDropped: (listener) => (dropped ? listener() : (drop = listener)),
        sendRelated: (json) => {
          if (!accept.sse) return false;
          // A listen's own owner ends it at the token's expiry, with its completion result first.
          post.stream ??= this.streams.openPostAnswer(res, undefined, isListen(inbound) ? undefined : auth, onClosed);
          post.stream.send(json);
          return true;
        },
      },
    };
    return post;
  }

  private async handleGet(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.originPolicy.admit(req, res)) return;
    const auth = await this.authenticator.authenticate(req);
    if (req.method === 'HEAD' || !this.hasSessions) {
      throw new McpMethodNotAllowedException(
        this.allow,
        this.hasSessions
          ? 'HEAD is not supported on the MCP endpoint'
          : 'This server is stateless: there is no GET stream',
      );
    }
    const accept = negotiateAccept(req.headers.accept);
    // A browser sends `text/html` first (and `*/*`, which would let it open a stream).
    if (accept.html) throw new McpNotAcceptableException(BROWSER_HINT);
    if (!accept.sse)
      throw new McpNotAcceptableException('GET opens the event stream and needs Accept: text/event-stream');
    this.binding.headerVersion(req);
    const session = await this.binding.require(req, auth);
    const header = req.headers[LAST_EVENT_ID_HEADER];
    await this.streams.openGet(req, res, session, auth, typeof header === 'string' ? header : undefined);
  }

  private async handleDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.originPolicy.admit(req, res)) return;
    const auth = await this.authenticator.authenticate(req);
    if (!this.hasSessions) {
      throw new McpMethodNotAllowedException(this.allow, 'This server is stateless: there are no sessions to end');
    }
    this.binding.headerVersion(req);
    await this.binding.end(await this.binding.require(req, auth));
    res.writeHead(204).end();
  }

  /**
   * Ends a POST whose access token expires before it is answered (a 2025-11-25 `tasks/result`
   * can wait for a task's whole life), as every stream ends with the token that opened it: an
   * SSE answer stream closes (`openPostStream`; a 2025 client resumes it on a GET with a fresh
   * token and `Last-Event-ID`, and a modern request is cancelled, as closing its stream means),
   * and a JSON answer not yet written is the 401 `invalid_token` challenge, with the request's
   * id (read from `payload` then). The timer stops when the response closes, however it closes.
   * For a principal whose token expires (`auth.expiresAt`).
   */
  private endAtExpiry(res: ServerResponse, auth: McpPrincipal, payload: unknown): void {
    const expiry = closeWhenExpired(auth, () => {
      if (!res.headersSent) rejectHttp(res, this.authenticator.expiredToken(), readableId(payload));
    });
    res.once('close', () => expiry.cancel());
  }

  /**
   * Every exception of a request ends here, answered through the one mapper, and counted once
   * when it refused the request (`nest_mcp.requests.refused`); what the dispatcher answered was
   * counted there.
   */
  private async guarded(req: IncomingMessage, res: ServerResponse, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.answerRejection(req, res, error);
    }
  }

  /** Answers the exception that ended a request (with its id when it knew one) and counts the refusal. */
  private answerRejection(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const { cause, id } = error instanceof HttpRejection ? error : { cause: error, id: null };
    const exception = this.toException(cause);
    rejectHttp(res, exception, id);
    this.inbound.refused(exception, 'streamable-http', req);
  }

  private toException(error: unknown): McpException {
    if (error instanceof McpException && error.httpStatus !== undefined) return error;
    const mapped = this.inbound.failed(error, 'Streamable HTTP');
    // Anything else that reaches the transport is a failure of the server itself.
    return mapped.httpStatus !== undefined ? mapped : new McpTransportFailure(mapped);
  }
}

/** A rejection that knows the id of the request it answers. */
class HttpRejection extends Error {
  constructor(
    override readonly cause: unknown,
    readonly id: JsonRpcId | null,
  ) {
    super('HTTP rejection', { cause });
  }
}

/** A request-level error that escaped to the transport: answered 500 with its own body. */
class McpTransportFailure extends McpException {
  constructor(inner: McpException) {
    super(inner.code, inner.message, inner.detail, inner.data, { status: 500 });
  }
}

/** A modern POST being served: its dispatch context, and what its answer is written with. */
interface ModernPost {
  readonly ctx: McpDispatchContext;
  /** The SSE answer stream, once a related message opened it. */
  stream: McpPostStream | undefined;
  /** Set once the dispatch answered: a close after that cancels nothing. */
  answered: boolean;
}

/** A `subscriptions/listen` request (MCP 2026-07-28), whose stream `McpListens` ends. */
const isListen = (inbound: Inbound): boolean =>
  inbound.kind === 'single' &&
  inbound.message.kind === 'request' &&
  inbound.message.request.method === 'subscriptions/listen';

const readableId = (payload: unknown): JsonRpcId | null => {
  const id = (payload as { id?: unknown } | null)?.id;
  return isValidId(id) ? id : null;
};
