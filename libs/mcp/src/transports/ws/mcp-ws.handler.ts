import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import { SESSION_ID_HEADER } from '../../mcp.constants.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { MCP_NOTIFICATION_BUS, type McpNotificationBus } from '../../notifications/mcp-notification.bus.js';
import { McpDispatcher } from '../../protocol/mcp.dispatcher.js';
import { errorResponse, JsonRpcErrorCode } from '../../protocol/json-rpc.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { McpOriginPolicy } from '../shared/origin-policy.js';
import { ConnectionSession } from '../shared/connection-session.js';
import { decodeJsonText } from '../shared/json-text.js';
import { WsConnection } from './ws.connection.js';

/** Close code for binary frames: MCP over WebSocket is text only (RFC 6455 1003). */
export const WS_CLOSE_UNSUPPORTED_DATA = 1003;

/**
 * The WebSocket transport: validates the upgrade, then turns each text frame into one
 * dispatch. The socket is the session; ping/pong drops dead peers.
 */
@Injectable()
export class McpWsHandler implements OnApplicationShutdown {
  private readonly logger = new Logger('McpWs');
  private readonly heartbeats = new Set<NodeJS.Timeout>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly sessions: McpSessionManager,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
    private readonly originPolicy: McpOriginPolicy,
  ) {}

  /** The upgrade check (`verifyClient`): foreign Origin or Host → 403. */
  verifyUpgrade(request: IncomingMessage): boolean {
    return this.originPolicy.allows(request.headers);
  }

  /** A new socket: wires messages, liveness and the session. */
  accept(socket: WebSocket, request: IncomingMessage): void {
    const connection = new WsConnection(socket, this.options.maxStreamBufferBytes);
    const session = new ConnectionSession(
      { dispatcher: this.dispatcher, sessions: this.sessions, bus: this.bus },
      'websocket',
      connection,
      request,
    );
    session.joinWhenFound(this.sessions.resolve(request.headers[SESSION_ID_HEADER]));
    this.keepAlive(socket);
    socket.on('close', () => void session.close());
    // The ws adapter logs every socket error at ERROR with a stack; oversized or non-UTF-8
    // frames from a client are routine, so they are logged here at debug instead.
    socket.removeAllListeners('error');
    socket.on('error', (error) => this.logger.debug(`WebSocket error: ${error.message}`));
    socket.on('message', (data, isBinary) => void this.onMessage(socket, session, data, isBinary));
  }

  onApplicationShutdown(): void {
    for (const timer of this.heartbeats) clearInterval(timer);
    this.heartbeats.clear();
  }

  private async onMessage(socket: WebSocket, session: ConnectionSession, data: RawData, isBinary: boolean) {
    if (isBinary) {
      socket.close(WS_CLOSE_UNSUPPORTED_DATA, 'MCP messages are JSON text frames');
      return;
    }
    const decoded = decodeJsonText(rawToBuffer(data));
    if (!decoded.ok) {
      this.reply(
        socket,
        errorResponse(null, {
          code: JsonRpcErrorCode.ParseError,
          message: 'Parse error',
          data: { detail: decoded.detail },
        }),
      );
      return;
    }
    try {
      const answer = await session.handle(decoded.value);
      if (answer) this.reply(socket, answer);
    } catch (error) {
      this.logger.error(`WebSocket message failed: ${(error as Error)?.stack ?? String(error)}`);
      this.reply(
        socket,
        errorResponse(null, {
          code: JsonRpcErrorCode.InternalError,
          message: 'Internal error',
          data: { detail: 'The server failed to handle the message' },
        }),
      );
    }
  }

  private reply(socket: WebSocket, message: object): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
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
    }, this.options.sseKeepAliveMs);
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
