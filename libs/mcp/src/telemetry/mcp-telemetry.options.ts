import type { Attributes, MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { McpPrincipal } from '../model/mcp-principal.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';

/**
 * What the `telemetry.attributes` callback is told of an inbound request or notification. The
 * request's arguments are not in it: the library never records them.
 * @publicApi
 */
export interface McpTelemetryRequest {
  /** The JSON-RPC method. */
  readonly method: string;
  /** The tool or prompt name (`tools/call`, `prompts/get`), or the resource URI (`resources/*`). */
  readonly target?: string;
  readonly transport: McpTransportKind;
  /** The session it belongs to (the 2025 era), when it has one yet. */
  readonly sessionId?: string;
  /** The caller, in resource-server mode. */
  readonly principal?: McpPrincipal;
  /** The raw transport request (the HTTP request, or the WebSocket upgrade request). */
  readonly request?: unknown;
}

/**
 * OpenTelemetry traces and metrics in the MCP semantic conventions (docs/telemetry.md): the
 * `telemetry` group of `McpModule.forRoot()`. The library records through `@opentelemetry/api`
 * only; nothing is exported until the application installs an OpenTelemetry SDK (or passes
 * providers here), and without one every instrument is the API's no-op.
 * @publicApi
 */
export interface McpTelemetryOptions {
  /** One SERVER span per inbound request or notification, and the spans inside it. @default true */
  tracing?: boolean;
  /** `mcp.server.operation.duration`, `mcp.server.session.duration` and the `nest_mcp.*` instruments. @default true */
  metrics?: boolean;
  /**
   * Record resource URIs (`mcp.resource.uri` on spans), which can carry personal data (a user's
   * id in a path). Metrics never carry them.
   * @default true
   */
  recordResourceUris?: boolean;
  /**
   * Record tool and prompt names (`gen_ai.tool.name`, `gen_ai.prompt.name`, and as the span
   * name's target), for servers whose names are generated from user data.
   * @default true
   */
  recordTargetNames?: boolean;
  /**
   * Attributes of your own for each SERVER span (a tenant, a plan), from the request. Called once
   * per sampled span; what it throws is ignored.
   */
  attributes?: (request: McpTelemetryRequest) => Attributes | undefined;
  /** The tracer provider to use instead of the global one (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** The meter provider to use instead of the global one (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
}
