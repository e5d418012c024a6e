import type { McpTransportKind } from '../../interfaces/mcp-transport.interface.js';
import type { McpNotificationBus } from '../../notifications/mcp-notification.bus.js';
import { McpDispatcher } from '../../protocol/mcp.dispatcher.js';
import { isInitializeMessage, type JsonRpcResponse } from '../../protocol/json-rpc.js';
import type { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { McpConnection, McpSessionRecord } from '../../session/mcp-session.interface.js';

/** The services a connection-oriented transport needs (WebSocket, legacy SSE, stdio). */
export interface ConnectionSessionServices {
  readonly dispatcher: McpDispatcher;
  readonly sessions: McpSessionManager;
  readonly bus: McpNotificationBus;
}

/**
 * One long-lived connection and the MCP session it carries. For these transports the
 * connection is the session: `initialize` over it creates the session, the connection becomes
 * the session's stream (so subscriptions and notifications work), and closing it ends the
 * session. A connection may also join an existing session (a WebSocket upgrade carrying
 * `MCP-Session-Id`); then closing it only detaches it.
 */
export class ConnectionSession {
  private session?: McpSessionRecord;
  private joined = false;
  private closed = false;
  /** While `initialize` runs, later messages wait for it, so a pipelining client is served in order. */
  private initializing?: Promise<unknown>;

  constructor(
    private readonly services: ConnectionSessionServices,
    private readonly transport: McpTransportKind,
    private readonly connection: McpConnection,
    private readonly request: unknown,
  ) {}

  get sessionId(): string | undefined {
    return this.session?.id;
  }

  /**
   * Holds every message until `lookup` settles, then joins the session it found (if any)
   * instead of waiting for `initialize`. With an async store the lookup takes time, and the
   * client may already be talking.
   */
  joinWhenFound(lookup: Promise<McpSessionRecord | undefined>): void {
    this.initializing = lookup
      .then(async (session) => {
        if (!session || this.closed) return;
        this.session = session;
        this.joined = true;
        await this.services.bus.attach(session.id, this.connection);
      })
      .catch(() => undefined);
  }

  /** Dispatches one parsed message; resolves to what to send back, if anything. */
  async handle(payload: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    const previous = this.initializing;
    if (isInitializeMessage(payload)) {
      // A second initialize waits for the first, then finds the session and is refused.
      const run = (async () => {
        if (previous) await previous;
        return this.dispatch(payload);
      })();
      this.initializing = run.catch(() => undefined);
      return run;
    }
    if (previous) await previous;
    return this.dispatch(payload);
  }

  private async dispatch(payload: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    if (this.session && !(await this.services.sessions.resolve(this.session.id))) {
      this.session = undefined;
    }
    const ctx = {
      transport: this.transport,
      request: this.request,
      sessionsEnabled: true,
      session: this.session,
      sendRelated: (message: object) => this.connection.send(message),
    };
    const answer = await this.services.dispatcher.dispatch(payload, ctx);
    if (!this.session && ctx.session && !this.closed) {
      this.session = ctx.session;
      await this.services.bus.attach(ctx.session.id, this.connection);
    }
    return answer;
  }

  /** The connection went away: end the session it created, or leave the one it joined. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const session = this.session;
    if (!session) return;
    if (this.joined) this.services.sessions.detachConnection(session.id, this.connection);
    else await this.services.sessions.end(session.id, 'deleted');
  }
}
