import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { MCP_NOTIFICATION_BUS, type McpNotificationBus } from '../../notifications/mcp-notification.bus.js';
import { McpDispatcher } from '../../protocol/mcp.dispatcher.js';
import { JsonRpcErrorCode } from '../../protocol/json-rpc.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { generateSessionId } from '../../session/session-id.js';
import { McpOriginPolicy } from '../shared/origin-policy.js';
import { rejectHttp } from '../http/http-rejection.js';
import { readJsonPayload, type McpHttpRequest } from '../http/json-payload.js';
import { negotiateAccept } from '../http/media-type.js';
import { SseConnection } from '../http/sse-connection.js';
import { SseStream } from '../http/sse.stream.js';
import { ConnectionSession } from '../shared/connection-session.js';

/** DI token of the legacy transport's paths (from the module extras). */
export const MCP_LEGACY_SSE_PATHS = Symbol('MCP_LEGACY_SSE_PATHS');

export interface McpLegacySsePaths {
  ssePath: string;
  messagesPath: string;
}

interface LegacyStream {
  readonly stream: SseStream;
  readonly session: ConnectionSession;
}

/**
 * The deprecated HTTP+SSE transport (protocol 2024-11-05) for old clients: `GET /sse` opens the
 * stream, whose first event names the `POST /messages?sessionId=…` endpoint; posts answer 202
 * and their responses travel on the stream. The stream is the session: it ends with it.
 */
@Injectable()
export class McpLegacySseHandler implements BeforeApplicationShutdown {
  private readonly logger = new Logger('McpLegacySse');
  /** Keyed by the stream id in the endpoint URL (not the MCP session id). */
  private readonly streams = new Map<string, LegacyStream>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_LEGACY_SSE_PATHS) private readonly paths: McpLegacySsePaths,
    private readonly dispatcher: McpDispatcher,
    private readonly sessions: McpSessionManager,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
    private readonly originPolicy: McpOriginPolicy,
  ) {}

  open(req: IncomingMessage, res: ServerResponse): void {
    if (!this.originPolicy.admit(req, res)) return;
    if (!negotiateAccept(req.headers.accept).sse) {
      rejectHttp(res, 406, JsonRpcErrorCode.SessionRequired, 'Not Acceptable', 'GET needs Accept: text/event-stream');
      return;
    }
    const id = generateSessionId();
    const stream = new SseStream(res, {
      keepAliveMs: this.options.sseKeepAliveMs,
      maxBufferedBytes: this.options.maxStreamBufferBytes,
    });
    stream.open();
    const session = new ConnectionSession(
      { dispatcher: this.dispatcher, sessions: this.sessions, bus: this.bus },
      'sse',
      new SseConnection(stream),
      req,
    );
    this.streams.set(id, { stream, session });
    stream.onClose(() => {
      this.streams.delete(id);
      void session.close();
    });
    stream.sendEvent('endpoint', `${this.paths.messagesPath}?sessionId=${encodeURIComponent(id)}`);
  }

  async post(req: McpHttpRequest, res: ServerResponse): Promise<void> {
    try {
      if (!this.originPolicy.admit(req, res)) return;
      const entry = this.streams.get(streamIdOf(req.url));
      if (!entry) {
        rejectHttp(res, 404, JsonRpcErrorCode.SessionNotFound, 'Session not found', 'Open a stream with GET first');
        return;
      }
      const payload = await readJsonPayload(req, res, this.options.maxBodyBytes);
      if (!payload) return;
      res.writeHead(202, { 'Content-Type': 'text/plain' }).end('Accepted');
      const answer = await entry.session.handle(payload.value);
      if (answer) entry.stream.send(answer);
    } catch (error) {
      this.logger.error(`Legacy SSE message failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!res.headersSent) {
        rejectHttp(
          res,
          500,
          JsonRpcErrorCode.InternalError,
          'Internal error',
          'The server failed to handle the request',
        );
      }
    }
  }

  /** Streams close before the HTTP server does, which would otherwise wait for them. */
  beforeApplicationShutdown(): void {
    for (const { stream } of this.streams.values()) stream.close();
    this.streams.clear();
  }
}

const streamIdOf = (url: string | undefined): string => {
  const query = url?.split('?')[1] ?? '';
  return new URLSearchParams(query).get('sessionId') ?? '';
};
