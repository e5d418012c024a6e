import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MODERN_PROTOCOL_VERSIONS } from '../../mcp.constants.js';
import {
  McpNotAcceptableException,
  McpSessionNotFoundException,
  McpUnsupportedProtocolVersionException,
} from '../../errors/mcp-transport.exceptions.js';
import { generateSessionId } from '../../session/session-id.js';
import { McpOriginPolicy } from '../connection/origin-policy.js';
import { rejectHttp } from '../connection/http-rejection.js';
import { readJsonPayload, type McpHttpRequest } from '../http/json-payload.js';
import { negotiateAccept } from '../http/media-type.js';
import { SseConnection } from '../http/sse-connection.js';
import { SseStream } from '../http/sse.stream.js';
import type { ConnectionSession } from '../connection/connection-session.js';
import { ConnectionSessions } from '../connection/connection-sessions.js';
import { McpAuthenticator } from '../../auth/mcp-authenticator.js';
import {
  isSamePrincipal,
  principalBinding,
  type McpPrincipal,
  type McpPrincipalBinding,
} from '../../model/mcp-principal.js';
import { requestPrincipal } from '../../auth/request-principal.js';
import { callerKeyOf } from '../../auth/caller-key.js';
import { McpEventStreams } from '../http/event-streams.js';
import type { McpServedTransport } from '../connection/served-transport.js';
import type { McpException } from '../../errors/mcp.exception.js';
import type { McpInboundPort } from '../../protocol/dispatch/inbound-port.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** DI token of the legacy transport's paths (from the module extras). */
export const MCP_LEGACY_SSE_PATHS = Symbol('MCP_LEGACY_SSE_PATHS');

export interface McpLegacySsePaths {
  ssePath: string;
  messagesPath: string;
}

interface LegacyStream {
  readonly connection: SseConnection;
  readonly session: ConnectionSession;
  /**
   * The principal of the `GET` that opened the stream (resource-server mode), bound once: the
   * stream is theirs, and only their POSTs reach it.
   */
  readonly owner: McpPrincipalBinding | undefined;
}

/**
 * The deprecated HTTP+SSE transport (protocol 2024-11-05) for old clients: `GET /sse` opens the
 * stream, whose first event names the `POST /messages?sessionId=…` endpoint; posts answer 202
 * and their responses travel on the stream. The stream is the session: it ends with it, and it
 * ends when the access token of its `GET` expires (the client opens a new one with a fresh
 * token). Open streams count against `maxSessions` (each is a session to be) and, per caller,
 * against `maxStreamsPerCaller`.
 */
@Injectable()
export class McpLegacySseHandler implements McpServedTransport {
  readonly kind = 'sse';
  /** Keyed by the stream id in the endpoint URL (not the MCP session id). */
  private readonly streams = new Map<string, LegacyStream>();

  constructor(
    @McpOptions('transport') private readonly options: McpOptionGroup<'transport'>,
    @Inject(MCP_LEGACY_SSE_PATHS) private readonly paths: McpLegacySsePaths,
    private readonly connections: ConnectionSessions,
    private readonly originPolicy: McpOriginPolicy,
    private readonly authenticator: McpAuthenticator,
    private readonly eventStreams: McpEventStreams,
  ) {}

  /** Where refusals are counted and failures mapped: the core's inbound port. */
  private get inbound(): McpInboundPort {
    return this.connections.inbound;
  }

  async open(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.originPolicy.admit(req, res, 'sse')) return;
    const refusal = await this.authenticator.authenticateConnection(req);
    if (refusal !== undefined) {
      this.reject(req, res, this.inbound.failed(refusal, 'legacy SSE'));
      return;
    }
    if (this.options.protocol === 'modern') {
      // HTTP+SSE carries protocol 2024-11-05 only: on a modern-only server it must not serve the
      // 2025 era to a client falling back to it (it would never learn the server is modern).
      this.reject(req, res, new McpUnsupportedProtocolVersionException('2024-11-05', MODERN_PROTOCOL_VERSIONS));
      return;
    }
    if (!negotiateAccept(req.headers.accept).sse) {
      this.reject(req, res, new McpNotAcceptableException('GET needs Accept: text/event-stream'));
      return;
    }
    if (this.streams.size >= this.options.maxSessions) {
      this.reject(req, res, new McpCapacityException('sessions', this.options.maxSessions));
      return;
    }
    const principal = requestPrincipal(req);
    const id = generateSessionId();
    const stream = new SseStream(res, {
      keepAliveMs: this.options.keepAliveMs,
      maxBufferedBytes: this.options.maxStreamBufferBytes,
    });
    try {
      this.eventStreams.hold(stream, callerKeyOf(principal, req));
    } catch (error) {
      this.reject(req, res, this.inbound.failed(error, 'legacy SSE'));
      return;
    }
    stream.open();
    const connection = new SseConnection(stream);
    // HTTP+SSE is the transport of protocol 2024-11-05: it serves the legacy era only.
    const session = this.connections.open('sse', connection, req, 'legacy');
    this.streams.set(id, { connection, session, owner: principal && principalBinding(principal) });
    stream.onClose(() => {
      this.streams.delete(id);
      void session.close();
    });
    stream.sendEvent('endpoint', `${this.paths.messagesPath}?sessionId=${encodeURIComponent(id)}`);
    this.eventStreams.endWithToken(stream, principal);
  }

  /** Open streams (diagnostics and tests). */
  get size(): number {
    return this.streams.size;
  }

  heldStreams(): number {
    return this.streams.size;
  }

  async post(req: McpHttpRequest, res: ServerResponse): Promise<void> {
    if (!this.originPolicy.admit(req, res, 'sse')) return;
    const receivedAt = this.inbound.receivedNow();
    let auth: McpPrincipal | undefined;
    try {
      auth = await this.authenticator.authenticate(req);
    } catch (error) {
      this.reject(req, res, this.inbound.failed(error, 'legacy SSE'));
      return;
    }
    const entry = this.streams.get(streamIdOf(req.url));
    // Another principal's stream is answered as an unknown one: its existence is not revealed.
    if (!entry || !isSamePrincipal(entry.owner, auth)) {
      this.reject(req, res, new McpSessionNotFoundException('Open a stream with GET first'));
      return;
    }
    const payload = await readJsonPayload(req, res, this.options.maxBodyBytes, (refusal) =>
      this.inbound.refused(refusal, 'sse', req),
    );
    if (!payload) return;
    res.writeHead(202, { 'Content-Type': 'text/plain' }).end('Accepted');
    // The answer travels on the stream, through the connection's one write path. The message
    // runs as this POST's token says (a newer token of the owner may carry more scopes); the
    // stream's owner never changes.
    await entry.session.handle(payload.value, auth, receivedAt);
  }

  /** Answers a refused request, and counts it when it is a refusal (`nest_mcp.requests.refused`). */
  private reject(req: IncomingMessage, res: ServerResponse, exception: McpException): void {
    rejectHttp(res, exception);
    this.inbound.refused(exception, 'sse', req);
  }

  /** Streams close before the HTTP server does, which would otherwise wait for them. */
  drain(): void {
    for (const { connection } of this.streams.values()) connection.close();
    this.streams.clear();
  }

  close(): void {}
}

const streamIdOf = (url: string | undefined): string => {
  const query = url?.split('?')[1] ?? '';
  return new URLSearchParams(query).get('sessionId') ?? '';
};
