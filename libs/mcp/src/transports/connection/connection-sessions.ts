import { Inject, Injectable } from '@nestjs/common';
import { MCP_LIVE_STREAMS } from '../../backend/mcp-backend.tokens.js';
import type { McpLiveStreams } from '../../backend/mcp-live-streams.js';
import type { McpConnection } from '../../backend/mcp-session.store.js';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';
import { type McpProtocolEras } from '../../mcp.constants.js';
import { McpInflightRequests } from '../../protocol/inflight-requests.js';
import { McpInboundPort } from '../../protocol/dispatch/inbound-port.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { ConnectionSession, type ConnectionSessionServices } from './connection-session.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** Makes the `ConnectionSession` of each new WebSocket, stdio or legacy SSE connection. */
@Injectable()
export class ConnectionSessions {
  private readonly services: ConnectionSessionServices;

  constructor(
    @McpOptions('transport') private readonly options: McpOptionGroup<'transport'>,
    inbound: McpInboundPort,
    sessions: McpSessionManager,
    @Inject(MCP_LIVE_STREAMS) liveStreams: McpLiveStreams,
    inflight: McpInflightRequests,
  ) {
    this.services = { inbound, sessions, liveStreams, inflight, maxInFlight: options.maxInFlightRequests };
  }

  /** The core's inbound port, for what a transport refuses before a message reaches a connection. */
  get inbound(): McpInboundPort {
    return this.services.inbound;
  }

  /** The session manager, for transports that look a session up themselves. */
  get sessions(): McpSessionManager {
    return this.services.sessions;
  }

  /**
   * @param eras the eras served on this connection (the legacy HTTP+SSE transport: `'legacy'`);
   *   the module's `protocol` by default.
   * @param answer writes the answer to a request; `connection.send` by default (stdio passes a
   *   path that never drops an answer).
   */
  open(
    transport: McpTransportKind,
    connection: McpConnection,
    request: unknown,
    eras?: McpProtocolEras,
    answer?: (json: string) => boolean,
  ): ConnectionSession {
    return new ConnectionSession(this.services, transport, connection, request, eras ?? this.options.protocol, answer);
  }
}
