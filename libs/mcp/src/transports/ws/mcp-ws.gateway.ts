import type { Type } from '@nestjs/common';
import { WebSocketGateway, type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { McpWsHandler } from './mcp-ws.handler.js';

/** The subprotocol negotiated on the upgrade (the official SDK's WebSocket client asks for it). */
export const MCP_WS_SUBPROTOCOL = 'mcp';

type VerifyCallback = (result: boolean, code?: number, message?: string) => void;

/**
 * Builds the WebSocket gateway for a path and frame limit known at module definition time
 * (`@WebSocketGateway` options are read when the class is declared). Needs the `ws` adapter:
 * `app.useWebSocketAdapter(new WsAdapter(app))`.
 */
export function createMcpWsGateway(path: string, maxPayload: number): Type<unknown> {
  // The upgrade check needs the runtime options, which exist once the gateway is built.
  let handler: McpWsHandler | undefined;

  @WebSocketGateway({
    path,
    maxPayload,
    handleProtocols: (protocols: Set<string>) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
    verifyClient: (info: { req: IncomingMessage }, done: VerifyCallback) =>
      handler?.verifyUpgrade(info.req) ? done(true) : done(false, 403, 'Forbidden'),
  })
  class McpWsGateway implements OnGatewayConnection {
    constructor(private readonly wsHandler: McpWsHandler) {
      handler = wsHandler;
    }

    handleConnection(socket: WebSocket, request: IncomingMessage): void {
      this.wsHandler.accept(socket, request);
    }
  }
  return McpWsGateway;
}
