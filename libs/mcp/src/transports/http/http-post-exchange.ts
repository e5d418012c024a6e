import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpPostStream } from '../../backend/mcp-post-streams.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import type { McpInboundDispatch } from '../../protocol/dispatch/inbound-port.js';
import { isInitializeFrame, type Inbound } from '../../protocol/inbound/inbound.js';
import type { McpAnswer } from '../../protocol/mcp-answer.js';
import type { McpHttpSessionBinding } from './http-session-binding.js';
import type { McpHttpStreams } from './http-streams.js';
import type { AcceptNegotiation } from './media-type.js';

/** What one POST's exchange needs of the transport, fixed for the transport's life. */
export interface McpHttpPostServices {
  readonly streams: McpHttpStreams;
  readonly binding: McpHttpSessionBinding;
  /** Session management is on (the 2025 era's `initialize` creates sessions). */
  readonly sessions: boolean;
}

/**
 * One Streamable HTTP POST from its classified payload to its written answer, whichever era it
 * carries: the dispatch context for that era (`open`, which the inbound port calls once it has
 * classified the payload), the answer stream the request may open for related messages, and the
 * answer, written as JSON or on that stream.
 *
 * A 2025-era POST belongs to a session: its `MCP-Protocol-Version` header is checked and its
 * session looked up by `prepare`, which the dispatcher runs inside the message's SERVER span.
 * A modern POST (MCP 2026-07-28) is stateless, and closing its answer stream before the answer
 * is written cancels the request, whichever side closed it (the client, or the server cutting
 * off a slow consumer, whose response may still finish cleanly once the client drains it).
 */
export class McpHttpPostExchange implements McpInboundDispatch {
  ctx!: McpDispatchContext;
  prepare?: () => Promise<void>;
  private stream?: McpPostStream;
  private answered = false;
  private dropped = false;
  private drop?: () => void;

  constructor(
    private readonly services: McpHttpPostServices,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly accept: AcceptNegotiation,
    private readonly auth: McpPrincipal | undefined,
    private readonly receivedAt: number | undefined,
  ) {}

  /** The context the payload is dispatched with, for the era the inbound port classified it in. */
  open(inbound: Inbound): this {
    if (inbound.era === 'modern') this.openModern(inbound);
    else this.openLegacy(inbound);
    return this;
  }

  /** Writes the answer: on the SSE stream when one was opened, else JSON (or SSE when JSON is not acceptable). */
  answer(answer: McpAnswer | undefined): void {
    this.answered = true;
    const res = this.res;
    const session = this.ctx.session;
    if (this.stream) {
      if (answer) this.stream.send(answer.json);
      this.stream.finish();
    } else if (res.writableEnded) {
      // Answered already: its token expired while it was served (the handler's expiry timer).
    } else if (!answer) {
      res.writeHead(202).end();
    } else if (!this.accept.json && answer.status === 200) {
      // A refusal with its own status (400, 404, ...) is plain JSON: an event stream rides on 200.
      const sse = this.services.streams.openPostAnswer(res, session, this.auth);
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

  private openLegacy(inbound: Inbound): void {
    const { streams, binding } = this.services;
    const { req, res, accept, auth } = this;
    // The header is not read on initialize itself: that is where the version is negotiated.
    const initialize = isInitializeFrame(inbound);
    const ctx: McpDispatchContext = {
      transport: 'streamable-http',
      request: req,
      sessionsEnabled: this.services.sessions,
      auth,
      receivedAt: this.receivedAt,
      sendRelated: (json) => {
        if (accept.sse) {
          this.stream ??= streams.openPostAnswer(res, ctx.session, auth);
          this.stream.send(json);
          return true;
        }
        // A JSON-only client can take related messages only on its GET stream.
        return ctx.session !== undefined && streams.sendToSession(ctx.session.id, json);
      },
    };
    this.ctx = ctx;
    // The header is checked and the session looked up by the dispatcher's call: inside the
    // message's SERVER span, so a request refused for either has its span like any other.
    this.prepare = async () => {
      if (!initialize) ctx.headerProtocolVersion = binding.headerVersion(req);
      ctx.session = await binding.forPost(req, initialize, auth);
    };
  }

  private openModern(inbound: Inbound): void {
    const { streams } = this.services;
    const onClosed = () => {
      if (this.answered || this.dropped) return;
      this.dropped = true;
      this.drop?.();
    };
    this.res.once('close', onClosed);
    // A listen's own owner ends it at the token's expiry, with its completion result first.
    const streamAuth = isListen(inbound) ? undefined : this.auth;
    this.ctx = {
      transport: 'streamable-http',
      request: this.req,
      sessionsEnabled: false,
      auth: this.auth,
      receivedAt: this.receivedAt,
      onDropped: (listener) => (this.dropped ? listener() : (this.drop = listener)),
      sendRelated: (json) => {
        if (!this.accept.sse) return false;
        this.stream ??= streams.openPostAnswer(this.res, undefined, streamAuth, onClosed);
        this.stream.send(json);
        return true;
      },
    };
  }
}

/** A `subscriptions/listen` request (MCP 2026-07-28), whose stream `McpListens` ends. */
const isListen = (inbound: Inbound): boolean =>
  inbound.kind === 'single' &&
  inbound.message.kind === 'request' &&
  inbound.message.request.method === 'subscriptions/listen';
