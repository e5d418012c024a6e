import type { Attributes, MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { McpPrincipal } from '../model/mcp-principal.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';
import type { McpSessionIdRecording } from './recorded-values.js';

export type { McpSessionIdRecording } from './recorded-values.js';

/** How a client's trace context is used (`telemetry.clientTraceContext`). @publicApi */
export type McpClientTraceContext = 'parent' | 'link' | 'ignore';

/**
 * What the `telemetry.attributes` callback is told of an inbound request or notification. The
 * request's arguments are not in it: the library never records them.
 * @publicApi
 */
export interface McpTelemetryRequest {
  /** The JSON-RPC method, as recorded: `_OTHER` for a method the server does not serve. */
  readonly method: string;
  /**
   * The tool or prompt name (`tools/call`, `prompts/get`) when one of that name exists, or the
   * resource URI (`resources/*`); bounded to `maxAttributeLength`.
   */
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
  /**
   * How the trace context a client sends in `params._meta` (`traceparent`, `tracestate`,
   * `baggage`) is used: `parent` makes it the SERVER span's parent, so the client chooses the
   * trace and, with a parent-based sampler, whether it is sampled (the conventions' default);
   * `link` starts a new trace, sampled by the server's own rule, linked to the client's context;
   * `ignore` reads nothing from the client (`_meta` nor the `traceparent` header).
   * @default 'parent'
   */
  clientTraceContext?: McpClientTraceContext;
  /**
   * How `mcp.session.id` is recorded on spans: `digest` (the first 32 hex digits of the id's
   * SHA-256), `none`, or `clear` (the id itself: without authorization a session id is its
   * session's only credential, so only where the trace backend is as trusted as the server).
   * @default 'digest'
   */
  sessionIds?: McpSessionIdRecording;
  /**
   * The longest string recorded as an attribute value or a span name's target (longer ones are
   * cut and end with `…`): request ids, URIs, names, and what `attributes` returns.
   * @default 1024
   */
  maxAttributeLength?: number;
  /** The tracer provider to use instead of the global one (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** The meter provider to use instead of the global one (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
}
