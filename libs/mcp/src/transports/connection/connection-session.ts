import type { McpTransportKind } from '../../model/mcp-transport.interface.js';
import type { McpLiveStreams } from '../../backend/mcp-live-streams.js';
import type { McpConnection, McpSessionRecord } from '../../backend/mcp-session.store.js';
import type { McpException } from '../../errors/mcp.exception.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { CONNECTION_SCOPE_PREFIX, type McpInflightRequests } from '../../protocol/inflight-requests.js';
import type { McpProtocolEras } from '../../mcp.constants.js';
import { randomBytes } from 'node:crypto';
import { isInitializeFrame, type Inbound } from '../../protocol/inbound/inbound.js';
import type { McpInboundPort } from '../../protocol/dispatch/inbound-port.js';
import type { McpSessionManager } from '../../session/mcp-session.manager.js';
import { requestPrincipal } from '../../auth/request-principal.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import type { McpRefusalReason } from '../../telemetry/mcp-telemetry.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';

/** What every connection of a connection-oriented transport shares (WebSocket, legacy SSE, stdio). */
export interface ConnectionSessionServices {
  /** Requests one connection may have in flight at once (`limits.maxInFlightRequests`). */
  readonly maxInFlight: number;
  /** Where every message goes: classified, dispatched, or refused before dispatch. */
  readonly inbound: McpInboundPort;
  readonly sessions: McpSessionManager;
  readonly liveStreams: McpLiveStreams;
  readonly inflight: McpInflightRequests;
}

/**
 * One long-lived connection and the MCP session it carries. For these transports the
 * connection is the session: `initialize` over it creates the session, the connection becomes
 * the session's stream (so subscriptions and notifications work), and closing it ends the
 * session. A connection may also join an existing session (a WebSocket upgrade carrying
 * `MCP-Session-Id`); then closing it only detaches it.
 *
 * Every answer goes out through `connection.send`, the same capped path as notifications (or
 * through `writeAnswer` when the transport must tell answers apart: stdio drops notifications,
 * never answers), and at most `maxInFlight` requests run at once: past it a request is refused
 * at once with `-32004`.
 */
export class ConnectionSession {
  /** Tracks this connection's requests, both eras, for `notifications/cancelled`. */
  private readonly id = `${CONNECTION_SCOPE_PREFIX}${randomBytes(9).toString('base64url')}`;
  private session?: McpSessionRecord;
  private joined = false;
  private closed = false;
  private inFlight = 0;
  /** While `initialize` runs, later messages wait for it, so a pipelining client is served in order. */
  private initializing?: Promise<unknown>;

  constructor(
    private readonly services: ConnectionSessionServices,
    private readonly transport: McpTransportKind,
    private readonly connection: McpConnection,
    private readonly request: unknown,
    private readonly eras: McpProtocolEras,
    private readonly writeAnswer: (json: string) => boolean = (json) => connection.send(json),
  ) {}

  /**
   * Holds every message until `lookup` settles, then joins the session it found (if any)
   * instead of waiting for `initialize`. With an async store the lookup takes time, and the
   * client may already be talking.
   */
  joinWhenFound(lookup: McpSessionRecord | undefined | Promise<McpSessionRecord | undefined>): void {
    this.initializing = Promise.resolve(lookup)
      .then(async (session) => {
        if (!session || this.closed) return;
        if (await this.services.liveStreams.attach(session.id, this.connection)) {
          this.session = session;
          this.joined = true;
        }
      })
      .catch(() => undefined);
  }

  /**
   * Dispatches one parsed message and sends its answer, if any, on the connection. `auth` is the
   * principal of the HTTP request that carried this one message (legacy SSE's POSTs); by default
   * the principal of the request that opened the connection. `receivedAt` is when that request
   * arrived (`McpTelemetry.receivedNow()`); by default, now.
   */
  async handle(payload: unknown, auth?: McpPrincipal, receivedAt = this.services.inbound.receivedNow()): Promise<void> {
    // Each request of a batch counts: a batch is not a way past the bound. One that does not
    // fit is refused whole, with one error, as the dispatcher refuses a batch it cannot take.
    const requests = requestsIn(payload);
    if (requests > 0) {
      if (this.inFlight + requests > this.services.maxInFlight) {
        const exception = new McpCapacityException('requestsInFlight', this.services.maxInFlight);
        if (isRequest(payload)) this.refuse(payload.id, exception, undefined, payload, receivedAt);
        else this.refuse(null, exception);
        return;
      }
      this.inFlight += requests;
    }
    try {
      const inbound = this.services.inbound.classify(payload, { eras: this.eras });
      const answer = await this.ordered(inbound, auth, receivedAt);
      if (answer) this.writeAnswer(answer.json);
    } catch (error) {
      // The dispatcher answers every failure itself; what lands here is a session lookup that
      // failed (the backend is down): the request still gets its answer.
      const exception = this.services.inbound.failed(error, this.transport);
      if (requests > 0) this.refuse(isRequest(payload) ? payload.id : null, exception);
    } finally {
      this.inFlight -= requests;
    }
  }

  /**
   * Sends an error for a request that is refused before it is dispatched, and counts it when it
   * is a refusal (`reason` when the exception's class does not say why). A refused `request`
   * gets its SERVER span with the error, as every request the server answers does.
   */
  refuse(
    id: unknown,
    exception: McpException,
    reason?: McpRefusalReason,
    request?: { readonly method: unknown; readonly params?: unknown },
    receivedAt?: number,
  ): void {
    const from = {
      transport: this.transport,
      request: this.request,
      sessionId: this.session?.id,
      principal: requestPrincipal(this.request),
      receivedAt,
    };
    this.writeAnswer(this.services.inbound.refuse(id, exception, from, reason, request));
  }

  private ordered(inbound: Inbound, principal: McpPrincipal | undefined, receivedAt: number | undefined) {
    const previous = this.initializing;
    const next = () => this.dispatch(inbound, principal, receivedAt);
    if (isInitializeFrame(inbound)) {
      // A second initialize waits for the first, then finds the session and is refused.
      const run = (async () => {
        if (previous) await previous;
        return next();
      })();
      this.initializing = run.catch(() => undefined);
      return run;
    }
    return previous ? previous.then(next) : next();
  }

  private async dispatch(inbound: Inbound, principal: McpPrincipal | undefined, receivedAt: number | undefined) {
    const send = (json: string) => this.connection.send(json);
    // The message's own principal, else that of the request that opened the connection.
    const auth = principal ?? requestPrincipal(this.request);
    if (inbound.era === 'modern') {
      // A modern message stands alone, whatever this connection did before (MCP 2026-07-28).
      const modern = {
        transport: this.transport,
        request: this.request,
        sessionsEnabled: false,
        connectionId: this.id,
        auth,
        receivedAt,
        sendRelated: send,
      };
      return this.services.inbound.dispatch(inbound, modern);
    }
    const ctx: McpDispatchContext = {
      transport: this.transport,
      request: this.request,
      sessionsEnabled: true,
      session: this.session,
      auth,
      connectionId: this.id,
      receivedAt,
      sendRelated: send,
    };
    // A fresh record per message (a log level set over HTTP applies here at once), looked up by
    // the dispatcher's call: inside the message's SERVER span.
    const joined = this.session;
    const lookup = joined
      ? async () => {
          this.session = ctx.session = await this.services.sessions.resolve(joined.id, auth);
        }
      : undefined;
    const answer = await this.services.inbound.dispatch(inbound, ctx, lookup);
    if (!this.session && ctx.session) await this.adopt(ctx.session);
    return answer;
  }

  /** The session `initialize` just created becomes this connection's, unless it closed meanwhile. */
  private async adopt(session: McpSessionRecord): Promise<void> {
    const attached = !this.closed && (await this.services.liveStreams.attach(session.id, this.connection));
    if (attached && !this.closed) this.session = session;
    else await this.services.sessions.end(session.id, 'closed');
  }

  /**
   * The connection went away: end the session it created, or leave the one it joined. Never
   * rejects (callers fire and forget it): a backend that cannot end the session now is logged,
   * and the session then expires like any idle one.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.services.inflight.abortScope(this.id, 'The connection closed');
    const session = this.session;
    if (!session) return;
    if (this.joined) this.services.liveStreams.detach(session.id, this.connection);
    else {
      await this.services.sessions.end(session.id, 'closed').catch((error: unknown) => {
        this.services.inbound.failed(error, `${this.transport} close`);
      });
    }
  }
}

/** The requests a message carries: 1 or 0, or those among a batch's elements. */
const requestsIn = (payload: unknown): number =>
  Array.isArray(payload) ? payload.filter(isRequest).length : isRequest(payload) ? 1 : 0;

const isRequest = (payload: unknown): payload is { id: unknown; method: unknown; params?: unknown } =>
  typeof payload === 'object' &&
  payload !== null &&
  !Array.isArray(payload) &&
  Object.hasOwn(payload, 'id') &&
  Object.hasOwn(payload, 'method');
