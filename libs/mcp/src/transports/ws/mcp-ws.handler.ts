import { Injectable } from '@nestjs/common';
import type { McpServedTransport } from '../connection/served-transport.js';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import { SESSION_ID_HEADER } from '../../mcp.constants.js';
import { McpParseErrorException } from '../../errors/mcp-protocol.exceptions.js';
import { McpOriginPolicy } from '../connection/origin-policy.js';
import type { ConnectionSession } from '../connection/connection-session.js';
import { ConnectionSessions } from '../connection/connection-sessions.js';
import { decodeJsonText } from '../connection/json-text.js';
import { WsConnection } from './ws.connection.js';
import { McpAuthenticator } from '../../auth/mcp-authenticator.js';
import { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import { closeWhenExpired } from '../../auth/token-expiry.js';
import { requestPrincipal } from '../../auth/request-principal.js';
import type { McpException } from '../../errors/mcp.exception.js';
import { errorResponse } from '../../model/json-rpc.js';
import { McpTelemetry, type McpRefusalReason } from '../../telemetry/mcp-telemetry.js';
import { countRefusal } from '../../protocol/dispatch/refusals.js';
import { McpLogger } from '../../logging/mcp-logger.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** Close code when the upgrade's access token expires (RFC 6455 1008, policy violation). */
export const WS_CLOSE_POLICY_VIOLATION = 1008;

/** How an upgrade is refused: the HTTP status, body and headers `ws` writes. */
export interface UpgradeRefusal {
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

/** The refusal of an upgrade for an exception: its status, its JSON-RPC error body, its headers. */
function upgradeRefusal(exception: McpException): UpgradeRefusal {
  return {
    status: exception.httpStatus ?? 500,
    body: JSON.stringify(errorResponse(null, exception.toJsonRpcError())),
    headers: { 'Content-Type': 'application/json', ...exception.httpHeaders },
  };
}

/** The code of the error `ws` emits for a frame past `maxPayload` (it then closes with 1009). */
const WS_MESSAGE_TOO_BIG = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

/** Close code for binary frames: MCP over WebSocket is text only (RFC 6455 1003). */
export const WS_CLOSE_UNSUPPORTED_DATA = 1003;

/**
 * The WebSocket transport: validates the upgrade, then turns each text frame into one
 * dispatch. The socket is the session; ping/pong drops dead peers.
 */
@Injectable()
export class McpWsHandler implements McpServedTransport {
  readonly kind = 'websocket';
  private readonly logger = new McpLogger('McpWs');
  private readonly heartbeats = new Set<NodeJS.Timeout>();
  /** Sockets accepted and not closed yet. */
  private sockets = 0;

  constructor(
    @McpOptions('transport') private readonly options: McpOptionGroup<'transport'>,
    private readonly connections: ConnectionSessions,
    private readonly originPolicy: McpOriginPolicy,
    private readonly errors: McpErrorMapper,
    private readonly authenticator: McpAuthenticator,
    private readonly telemetry: McpTelemetry,
  ) {}

  /**
   * The upgrade check (`verifyClient`): foreign Origin or Host → 403; in resource-server mode the
   * access token too (401/400/503 with the challenge). Resolves to the refusal, if any.
   */
  async verifyUpgrade(request: IncomingMessage): Promise<UpgradeRefusal | undefined> {
    if (!this.originPolicy.allows(request, 'websocket')) return { status: 403, body: 'Forbidden' };
    const refusal = await this.authenticator.authenticateConnection(request);
    if (refusal === undefined) return undefined;
    const exception = this.errors.toException(refusal, 'WebSocket upgrade');
    countRefusal(this.telemetry, exception, 'websocket', request);
    return upgradeRefusal(exception);
  }

  /** A new socket: wires messages, liveness and the session. */
  accept(socket: WebSocket, request: IncomingMessage): void {
    const connection = new WsConnection(socket, this.options.maxStreamBufferBytes);
    const session = this.connections.open('websocket', connection, request);
    const auth = requestPrincipal(request);
    session.joinWhenFound(this.connections.sessions.resolve(request.headers[SESSION_ID_HEADER], auth));
    // The socket carries the upgrade's token, which no message can renew: it ends with it.
    const expiry = closeWhenExpired(auth, () => socket.close(WS_CLOSE_POLICY_VIOLATION, 'Access token expired'));
    this.keepAlive(socket);
    this.sockets += 1;
    socket.on('close', () => {
      this.sockets -= 1;
      expiry.cancel();
      void session.close();
    });
    // The ws adapter logs every socket error at ERROR with a stack; oversized or non-UTF-8
    // frames from a client are routine, so they are logged here at debug instead.
    socket.removeAllListeners('error');
    socket.on('error', (error) => {
      // A frame past `maxPayload`: `ws` closes the socket with 1009 (message too big).
      if ((error as { code?: string }).code === WS_MESSAGE_TOO_BIG) this.refused('size', request);
      this.logger.debug(`WebSocket error: ${error.message}`);
    });
    socket.on('message', (data, isBinary) => void this.onMessage(socket, request, session, data, isBinary));
  }

  heldStreams(): number {
    return this.sockets;
  }

  /** A socket that carries a session closes with the backend's streams (it is the session's stream); the server closes the rest. */
  drain(): void {}

  close(): void {
    for (const timer of this.heartbeats) clearInterval(timer);
    this.heartbeats.clear();
  }

  private refused(reason: McpRefusalReason, request: IncomingMessage): void {
    this.telemetry.refusedOn(reason, 'websocket', request);
  }

  private async onMessage(
    socket: WebSocket,
    request: IncomingMessage,
    session: ConnectionSession,
    data: RawData,
    isBinary: boolean,
  ) {
    // Frames that arrive while the socket closes (a slow consumer, a session that ended) are dropped.
    if (socket.readyState !== socket.OPEN) return;
    if (isBinary) {
      socket.close(WS_CLOSE_UNSUPPORTED_DATA, 'MCP messages are JSON text frames');
      this.refused('invalid', request);
      return;
    }
    const decoded = decodeJsonText(rawToBuffer(data));
    if (!decoded.ok) {
      session.refuse(null, new McpParseErrorException(decoded.detail));
      return;
    }
    await session.handle(decoded.value);
  }

  /** Pings every keep-alive interval; a peer that missed the previous pong is dropped. */
  private keepAlive(socket: WebSocket): void {
    let alive = true;
    socket.on('pong', () => (alive = true));
    const timer = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    }, this.options.keepAliveMs);
    timer.unref();
    this.heartbeats.add(timer);
    socket.on('close', () => {
      clearInterval(timer);
      this.heartbeats.delete(timer);
    });
  }
}

const rawToBuffer = (data: RawData): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
