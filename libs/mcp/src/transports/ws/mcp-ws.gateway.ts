import { Inject, Injectable, type Provider } from '@nestjs/common';
import type { OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { MCP_OPTION_GROUP_TOKENS, type McpOptionGroup } from '../../mcp-option-groups.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../mcp.constants.js';
import { loadOptionalPeer } from '../../optional-peer.js';
import { McpWsHandler } from './mcp-ws.handler.js';

/** The subprotocol negotiated on the upgrade (the official SDK's WebSocket client asks for it). */
export const MCP_WS_SUBPROTOCOL = 'mcp';

/** Resolves once the gateway class carries its `@WebSocketGateway` metadata. */
const MCP_WS_GATEWAY_DECLARED = Symbol('MCP_WS_GATEWAY_DECLARED');

type VerifyCallback = (
  result: boolean,
  code?: number,
  message?: string,
  headers?: Record<string, string | number>,
) => void;

/**
 * The providers of the WebSocket transport for a path known at module definition time: the
 * gateway class and the async provider that declares it a gateway. The frame limit is
 * `maxPayload`, or else the module's `maxBodyBytes` (one message on any transport has the same
 * bound). Needs the `ws` adapter: `app.useWebSocketAdapter(new WsAdapter(app))`.
 *
 * `@nestjs/websockets` is an optional peer, imported here only when the transport is turned on,
 * so that applications without WebSocket do not need it. Its `@WebSocketGateway` decorator only
 * writes metadata on the class, and Nest reads that metadata when it connects gateways in
 * `app.init()`, after every provider (this async one included) has been resolved; so the
 * decorator is applied once the package has loaded, and the gateway waits for it.
 */
export function createMcpWsGatewayProviders(path: string, maxPayload: number | undefined): Provider[] {
  // The upgrade check needs the runtime options, which exist once the gateway is built.
  let handler: McpWsHandler | undefined;
  // Options of the `ws` adapter's server (`path`, `maxPayload`, ...), passed through by Nest.
  const options = {
    path,
    maxPayload: maxPayload ?? DEFAULT_BODY_LIMIT_BYTES,
    handleProtocols: (protocols: Set<string>) => (protocols.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
    verifyClient: (info: { req: IncomingMessage }, done: VerifyCallback) => {
      if (!handler) return done(false, 503);
      // Origin and Host, then the access token: the upgrade gets the checks every HTTP request gets.
      handler.verifyUpgrade(info.req).then(
        (refusal) => (refusal ? done(false, refusal.status, refusal.body, refusal.headers) : done(true)),
        () => done(false, 500),
      );
    },
  };

  @Injectable()
  class McpWsGateway implements OnGatewayConnection {
    constructor(
      private readonly wsHandler: McpWsHandler,
      @Inject(MCP_WS_GATEWAY_DECLARED) _declared: true,
    ) {
      handler = wsHandler;
    }

    handleConnection(socket: WebSocket, request: IncomingMessage): void {
      this.wsHandler.accept(socket, request);
    }
  }

  const declareGateway = async (resolved: McpOptionGroup<'transport'>): Promise<true> => {
    options.maxPayload = maxPayload ?? resolved.maxBodyBytes;
    const { WebSocketGateway } = await loadOptionalPeer(
      {
        name: '@nestjs/websockets',
        feature: `The WebSocket transport (ws: { path: '${path}' })`,
        install: ['@nestjs/websockets', '@nestjs/platform-ws'],
      },
      () => import('@nestjs/websockets'),
    );
    WebSocketGateway(options)(McpWsGateway);
    return true;
  };
  return [
    { provide: MCP_WS_GATEWAY_DECLARED, useFactory: declareGateway, inject: [MCP_OPTION_GROUP_TOKENS.transport] },
    McpWsGateway,
  ];
}
