import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { ATTR_TRANSPORT } from '../telemetry/semconv.js';
import { MCP_LIVE_STREAMS, MCP_POST_STREAMS } from '../backend/mcp-backend.tokens.js';
import type { McpLiveStreams } from '../backend/mcp-live-streams.js';
import type { McpPostStreams } from '../backend/mcp-post-streams.js';
import { McpListens } from '../protocol/listen/listens.registry.js';
import { MCP_TRANSPORTS, type McpServedTransport } from './connection/served-transport.js';

/**
 * The one start and the one shutdown of every transport. Shutdown goes in this order, once:
 * 1. every `subscriptions/listen` is answered with its completion result (the end MCP
 *    2026-07-28 gives a listen the server ends), while its stream can still carry it;
 * 2. each transport drains: it closes the streams it holds (POST answers, legacy HTTP+SSE) with a
 *    `retry:` hint;
 * 3. the backend's streams of this instance (each session's standalone stream, resumed POST
 *    answers) close with a `retry:` hint: with a shared backend the clients resume on another
 *    instance with `Last-Event-ID`. Sessions are never ended by a shutdown.
 * Then, last, each transport releases what is left.
 */
@Injectable()
export class McpTransportsLifecycle
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private drained?: Promise<void>;

  constructor(
    @Inject(MCP_TRANSPORTS) private readonly transports: readonly McpServedTransport[],
    private readonly listens: McpListens,
    @Inject(MCP_LIVE_STREAMS) private readonly liveStreams: McpLiveStreams,
    @Inject(MCP_POST_STREAMS) private readonly postStreams: McpPostStreams,
    private readonly telemetry: McpTelemetry,
  ) {}

  onModuleInit(): void {
    this.telemetry.gauge(
      'streams.held',
      'Long-lived streams this instance holds, by transport: standalone GET streams (streamable-http), legacy HTTP+SSE streams (sse), WebSocket connections (websocket), the stdio pipe (stdio).',
      '{stream}',
      (observe) => {
        for (const transport of this.transports) {
          observe(transport.heldStreams(), { [ATTR_TRANSPORT]: transport.kind });
        }
      },
    );
  }

  onApplicationBootstrap(): void {
    for (const transport of this.transports) transport.start?.();
  }

  beforeApplicationShutdown(): Promise<void> {
    return (this.drained ??= this.drain());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    await Promise.all(this.transports.map(async (transport) => transport.close()));
  }

  private async drain(): Promise<void> {
    await this.listens.endAll();
    await Promise.all(this.transports.map(async (transport) => transport.drain()));
    await Promise.all([this.liveStreams.drain(), this.postStreams.drain()]);
  }
}
