import {
  context,
  createNoopMeter,
  metrics,
  INVALID_TRACEID,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type Meter,
  type ObservableResult,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { JsonRpcId } from '../model/json-rpc.js';
import type { McpPrincipal } from '../model/mcp-principal.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';
import type { McpBackendTelemetry } from '../backend/mcp-backend.interface.js';
import { NO_OPERATION, RecordedOperation, type McpOperation } from './mcp-operation.js';
import type { McpTelemetryOptions } from './mcp-telemetry.options.js';
import { targetOf, type OperationTarget } from './operation-target.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESOURCE_URI,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  ATTR_REFUSAL_REASON,
  ATTR_TRANSPORT,
  DURATION_BUCKETS_SECONDS,
  ERROR_TYPE_OTHER,
  GEN_AI_EXECUTE_TOOL,
  INSTRUMENTATION_SCOPE,
  LIBRARY_PREFIX,
  METRIC_OPERATION_DURATION,
  METRIC_SESSION_DURATION,
} from './semconv.js';
import { SessionDurations } from './session-durations.js';
import { spanOrigin } from './trace-context.js';
import {
  boundAttributes,
  bounded,
  CLIENT_NOTIFICATIONS_ONLY,
  DEFAULT_MAX_ATTRIBUTE_LENGTH,
  recordedMethod,
  recordedSessionId,
  type McpSessionIdRecording,
  type McpTelemetryCatalog,
} from './recorded-values.js';
import { clientAttributes, networkAttributes } from './transport-attributes.js';

/** What the dispatcher knows of an inbound message when it starts serving it. */
export interface McpOperationStart {
  readonly method: string;
  /** Absent for a notification. */
  readonly id?: JsonRpcId;
  readonly params?: unknown;
  readonly transport: McpTransportKind;
  /** The raw transport request: its socket (client address), HTTP version and headers. */
  readonly request?: unknown;
  readonly protocolVersion?: string;
  readonly sessionId?: string;
  readonly principal?: McpPrincipal;
  /** When it arrived (`performance.now()`, see `receivedNow`): the span's and the duration's start. */
  readonly receivedAt?: number;
}

/** Why the library refused a request before serving it (`nest_mcp.requests.refused`). @publicApi */
export type McpRefusalReason = 'auth' | 'origin' | 'size' | 'rate' | 'era' | 'capacity' | 'invalid';

/** What a failed request to the client was, for its span. */
export interface McpAskFailure {
  /** Absent when the ask ended as expected (a round closing to ask the client). */
  readonly errorType?: string;
  /** The JSON-RPC code of the client's error answer. */
  readonly code?: number;
  readonly message?: string;
  readonly attributes?: Attributes;
}

/** A span the library opened inside an operation, ended with what it learned. */
export interface McpChildSpan {
  end(attributes?: Attributes, error?: { readonly code?: number | string; readonly message: string }): void;
}

const NO_CHILD: McpChildSpan = { end: () => undefined };

/**
 * `trace.isSpanContextValid`, with the API's no-op span (no SDK: every request's span) answered
 * without its two regular expressions.
 */
const hasTrace = (context: SpanContext): boolean =>
  context.traceId !== INVALID_TRACEID && trace.isSpanContextValid(context);

/**
 * The API's no-op tracer provider: what the global proxy provider delegates to until an SDK is
 * registered (`trace.setGlobalTracerProvider`), so what a proxy tracer then makes spans with.
 */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/** The class of the API's no-op histogram, what a meter gives when no SDK is installed. */
const NOOP_HISTOGRAM_CLASS = createNoopMeter().createHistogram('noop').constructor;
const isNoopHistogram = (histogram: Histogram): boolean => histogram.constructor === NOOP_HISTOGRAM_CLASS;

/**
 * The library's telemetry, through `@opentelemetry/api` only: the SERVER span and duration of
 * each inbound message, the spans of what a handler causes (requests to the client, fan-outs),
 * session durations, and the library's own gauges and counters. Without an OpenTelemetry SDK
 * every instrument is the API's no-op; with `telemetry.tracing`/`metrics` off, not even that.
 * @publicApi
 */
export class McpTelemetry {
  private readonly tracer?: Tracer;
  /**
   * The API's proxy provider `tracer` came from, when it came from one: no SDK was registered when
   * the module was made. The proxy picks up an SDK registered later, so whether its tracer makes
   * anything is asked per request (`startOperation`), not here.
   */
  private readonly proxy?: ProxyTracerProvider;
  private readonly meter?: Meter;
  private readonly operationDuration?: Histogram;
  private readonly refusals?: Counter;
  private readonly sessions?: SessionDurations;
  private readonly recordUris: boolean;
  private readonly recordNames: boolean;
  private readonly sessionIds: McpSessionIdRecording;
  /** The longest string recorded (`telemetry.maxAttributeLength`). */
  readonly maxLength: number;

  /**
   * @param maxSessions bounds the sessions whose start this instance remembers for
   * `mcp.server.session.duration` (the module's `sessions.max`).
   * @param catalog what the server serves: only those method, tool and prompt names are recorded.
   */
  constructor(
    private readonly options: McpTelemetryOptions = {},
    maxSessions = 10_000,
    private readonly catalog: McpTelemetryCatalog = CLIENT_NOTIFICATIONS_ONLY,
  ) {
    this.recordUris = options.recordResourceUris ?? true;
    this.recordNames = options.recordTargetNames ?? true;
    this.sessionIds = options.sessionIds ?? 'digest';
    this.maxLength = options.maxAttributeLength ?? DEFAULT_MAX_ATTRIBUTE_LENGTH;
    if (options.tracing ?? true) {
      const provider = options.tracerProvider ?? trace.getTracerProvider();
      this.tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
      if (provider instanceof ProxyTracerProvider) this.proxy = provider;
    }
    if (options.metrics ?? true) {
      // The meter is taken now, when the module is created: an SDK must be started before it
      // (the metrics API has no proxy that would pick up a provider registered later).
      const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE);
      this.meter = meter;
      const advice = { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS };
      const operationDuration = meter.createHistogram(METRIC_OPERATION_DURATION, {
        description:
          'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
        unit: 's',
        advice,
      });
      // The API's no-op meter (no SDK): nothing to record, so no attributes to build per request.
      if (!isNoopHistogram(operationDuration)) this.operationDuration = operationDuration;
      this.sessions = new SessionDurations(
        meter.createHistogram(METRIC_SESSION_DURATION, {
          description: 'The duration of the MCP session as observed on the MCP server.',
          unit: 's',
          advice,
        }),
        maxSessions,
      );
      this.refusals = meter.createCounter(`${LIBRARY_PREFIX}.requests.refused`, {
        description: 'Requests refused before they were served, by reason.',
        unit: '{request}',
      });
    }
  }

  /** True when spans are made (the option; an SDK may still sample them out). */
  get tracing(): boolean {
    return this.tracer !== undefined;
  }

  /**
   * The time stamp a transport takes when a message arrives (`McpDispatchContext.receivedAt`),
   * or undefined when neither a span nor the duration would use it.
   */
  receivedNow(): number | undefined {
    return this.tracer || this.operationDuration ? performance.now() : undefined;
  }

  /**
   * Starts serving one inbound request or notification. Without an SDK this is the cheap path
   * the benchmarks measure: the API's no-op span carries no context (so none is made active)
   * and a no-op histogram gets no attributes built for it.
   */
  startOperation(start: McpOperationStart): McpOperation {
    // No SDK behind the API's proxy, no propagator (the client's trace context cannot be read) and
    // no ambient span: the no-op tracer would answer the invalid span, which carries nothing. Its
    // name, origin and span are not made then; a few reads of the API's globals decide it.
    const tracer =
      this.proxy?.getDelegate() === NOOP_TRACER_PROVIDER &&
      propagation.fields().length === 0 &&
      trace.getSpan(context.active()) === undefined
        ? undefined
        : this.tracer;
    if (!tracer && !this.operationDuration) return NO_OPERATION;
    // Only what the server serves becomes a name: a client's invented method is `_OTHER`, and a
    // tool or prompt is named only when one of that name exists (each bounded in length).
    const method = recordedMethod(this.catalog, start.method);
    // The target and the network attributes are recorded only by a recording span or the
    // duration: the no-op path (no SDK, or sampled out) looks up neither.
    let target: OperationTarget | undefined;
    let named: string | undefined;
    let network: Attributes | undefined;
    let span: Span | undefined;
    let active: Context | undefined;
    if (tracer) {
      const headers =
        start.transport === 'streamable-http' ? (start.request as { headers?: unknown })?.headers : undefined;
      const origin = spanOrigin(start.params, headers, this.options.clientTraceContext ?? 'parent');
      // Named by its method until it is known to record: the no-op path builds no name.
      span = tracer.startSpan(
        method,
        // A number below the time origin is read as `performance.now()` time by the SDK.
        { kind: SpanKind.SERVER, links: origin.links, startTime: start.receivedAt },
        origin.parent,
      );
      if (span.isRecording()) {
        target = this.knownTarget(start.method, start.params);
        named = this.recordNames ? (target.tool ?? target.prompt) : undefined;
        network = networkAttributes(start.transport, start.request);
        if (named !== undefined) span.updateName(`${method} ${named}`);
        span.setAttributes(this.spanAttributes(start, method, target, named, network));
        active = trace.setSpan(origin.parent, span);
      } else if (hasTrace(span.spanContext())) {
        // Sampled out, but its context still travels to what the handler calls.
        active = trace.setSpan(origin.parent, span);
      } else span = undefined;
    }
    const duration = this.operationDuration;
    if (!span && !duration) return NO_OPERATION;
    let metricAttributes: Attributes | undefined;
    if (duration) {
      if (target === undefined) {
        target = this.knownTarget(start.method, start.params);
        named = this.recordNames ? (target.tool ?? target.prompt) : undefined;
        network = networkAttributes(start.transport, start.request);
      }
      metricAttributes = { [ATTR_MCP_METHOD_NAME]: method, ...network };
      if (named !== undefined) {
        metricAttributes[target.tool !== undefined ? ATTR_GEN_AI_TOOL_NAME : ATTR_GEN_AI_PROMPT_NAME] = named;
      }
      if (target.tool !== undefined) metricAttributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_EXECUTE_TOOL;
      if (start.protocolVersion !== undefined)
        metricAttributes[ATTR_MCP_PROTOCOL_VERSION] = bounded(start.protocolVersion, this.maxLength);
    }
    return new RecordedOperation(
      span && active ? { span, context: active } : undefined,
      duration && metricAttributes ? { duration, attributes: metricAttributes } : undefined,
      start.sessionId !== undefined,
      start.receivedAt,
      this.recordingOf,
    );
  }

  /** What a span records of a session id, by `telemetry.sessionIds` (the digest by default). */
  recordSessionId(id: string): string | undefined {
    return recordedSessionId(this.sessionIds, id);
  }

  /** `mcp.session.id` as recorded, for a span of the session (none when `sessionIds: 'none'`). */
  sessionAttributes(id: string | undefined): Attributes {
    const recorded = id === undefined ? undefined : this.recordSessionId(id);
    return recorded === undefined ? {} : { [ATTR_MCP_SESSION_ID]: recorded };
  }

  /** How an operation's late values (a session id, a version) are recorded: as its start's are. */
  private readonly recordingOf = {
    sessionId: (id: string) => this.recordSessionId(id),
    text: (value: string) => bounded(value, this.maxLength),
  };

  /** The target of a request when it names something the server has: a tool, a prompt; a URI bounded. */
  private knownTarget(method: string, params: unknown): OperationTarget {
    const target = targetOf(method, params);
    if (target.tool !== undefined) {
      return this.catalog.hasTool(target.tool) ? { tool: bounded(target.tool, this.maxLength) } : {};
    }
    if (target.prompt !== undefined) {
      return this.catalog.hasPrompt(target.prompt) ? { prompt: bounded(target.prompt, this.maxLength) } : {};
    }
    return target.uri === undefined ? target : { uri: bounded(target.uri, this.maxLength) };
  }

  /**
   * Runs a request the server sends the client while serving one (elicitation, sampling, roots;
   * in a task too) inside a CLIENT span under the active one, as the conventions have the server
   * report the operations it initiates. The span is active while `ask` runs, so the request that
   * goes out carries it in `_meta`. `describe` says what a failure was: an error (`errorType`),
   * or an expected end (no `errorType`: a multi round-trip round that closes to ask the client).
   */
  clientRequest<T>(
    method: string,
    attributes: Attributes,
    ask: () => Promise<T>,
    describe: (error: unknown) => McpAskFailure,
  ): Promise<T> {
    if (!this.tracer) return ask();
    const span = this.tracer.startSpan(method, {
      kind: SpanKind.CLIENT,
      attributes: boundAttributes({ [ATTR_MCP_METHOD_NAME]: method, ...attributes }, this.maxLength),
    });
    return context.with(trace.setSpan(context.active(), span), ask).then(
      (result) => {
        span.end();
        return result;
      },
      (error: unknown) => {
        if (span.isRecording()) {
          const failure = describe(error);
          // The client's error answer is the client's words: bounded like everything it sends.
          if (failure.attributes) span.setAttributes(boundAttributes({ ...failure.attributes }, this.maxLength));
          if (failure.errorType !== undefined) {
            span.setAttribute(ATTR_ERROR_TYPE, bounded(failure.errorType, this.maxLength));
            if (failure.code !== undefined)
              span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, bounded(String(failure.code), this.maxLength));
            span.setStatus({
              code: SpanStatusCode.ERROR,
              message: failure.message === undefined ? undefined : bounded(failure.message, this.maxLength),
            });
          }
        }
        span.end();
        throw error;
      },
    );
  }

  /**
   * One span for one notification's fan-out (not one per recipient): ended with the audience
   * counts. A resource URI is recorded unless `recordResourceUris` is off.
   */
  startFanout(method: string, uri?: string): McpChildSpan {
    const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: method };
    if (uri !== undefined && this.recordUris) attributes[ATTR_MCP_RESOURCE_URI] = bounded(uri, this.maxLength);
    return this.child(method, SpanKind.PRODUCER, attributes);
  }

  /** A session began on this instance; its duration is recorded when it ends (on any instance). */
  sessionStarted(id: string, startedAt: number, attributes: Attributes): void {
    this.sessions?.started(id, startedAt, attributes);
  }

  /** A session ended (told on every instance: only the one that began it records). */
  sessionEnded(id: string): void {
    this.sessions?.ended(id);
  }

  /**
   * Counts a request refused on `transport`, with the transport's network attributes and
   * `nest_mcp.transport` (the network attributes alone do not tell Streamable HTTP from legacy
   * HTTP+SSE).
   */
  refusedOn(reason: McpRefusalReason, transport: McpTransportKind, request?: unknown): void {
    if (!this.refusals) return;
    this.refused(reason, { [ATTR_TRANSPORT]: transport, ...networkAttributes(transport, request) });
  }

  /** Counts a request refused before it was served. */
  refused(reason: McpRefusalReason, attributes?: Attributes): void {
    this.refusals?.add(
      1,
      attributes ? { [ATTR_REFUSAL_REASON]: reason, ...attributes } : { [ATTR_REFUSAL_REASON]: reason },
    );
  }

  /** True when the library's metrics are recorded (the option; without an SDK they are no-ops). */
  get metering(): boolean {
    return this.meter !== undefined;
  }

  /**
   * An observable gauge of the library (`nest_mcp.<name>`), read at each collection: `read`
   * reports one value, or one per attribute set. It may be async (a count kept in a shared
   * backend): the SDK waits for it within its collection timeout. What it throws or rejects with
   * is dropped: that collection reports nothing for this gauge.
   */
  gauge(
    name: string,
    description: string,
    unit: string,
    read: (observe: (value: number, attributes?: Attributes) => void) => void | Promise<void>,
  ): void {
    if (!this.meter) return;
    this.meter
      .createObservableGauge(`${LIBRARY_PREFIX}.${name}`, { description, unit })
      .addCallback(async (result: ObservableResult) => {
        try {
          await read((value, attributes) => result.observe(value, attributes));
        } catch {
          // A figure that cannot be read now (the backend is down) is left out of this collection.
        }
      });
  }

  /**
   * A CLIENT span for one round trip of a backend to its storage (a Redis command), as a child
   * of the active span: only while a recorded span is active (a request being served), so
   * background work and unsampled requests make none, and without tracing this is one check.
   */
  startRoundTrip(name: string, attributes: Attributes): McpChildSpan | undefined {
    if (!this.tracer) return undefined;
    const parent = context.active();
    if (!trace.getSpan(parent)?.isRecording()) return undefined;
    const span = this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
    return {
      end: (more, error) => {
        if (more) span.setAttributes(more);
        if (error) {
          span.setAttribute(ATTR_ERROR_TYPE, error.code !== undefined ? String(error.code) : ERROR_TYPE_OTHER);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
        }
        span.end();
      },
    };
  }

  /** What a backend records through (`McpBackendContext.telemetry`). */
  forBackend(): McpBackendTelemetry {
    return {
      startRoundTrip: (name, attributes) => {
        const span = this.startRoundTrip(name, attributes);
        return span && { end: (error, more) => span.end(more, error === undefined ? undefined : backendError(error)) };
      },
      gauge: (name, description, unit, read) => this.gauge(name, description, unit, read),
    };
  }

  private child(name: string, kind: SpanKind, attributes: Attributes): McpChildSpan {
    if (!this.tracer) return NO_CHILD;
    const span = this.tracer.startSpan(name, { kind, attributes });
    return {
      end: (more, error) => {
        if (span.isRecording()) {
          if (more) span.setAttributes(more);
          if (error) {
            if (error.code !== undefined) span.setAttribute('error.type', String(error.code));
            span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          }
        }
        span.end();
      },
    };
  }

  private spanAttributes(
    start: McpOperationStart,
    method: string,
    target: OperationTarget,
    named: string | undefined,
    network: Attributes,
  ): Attributes {
    const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: method, ...network };
    if (named !== undefined)
      attributes[target.tool !== undefined ? ATTR_GEN_AI_TOOL_NAME : ATTR_GEN_AI_PROMPT_NAME] = named;
    if (target.tool !== undefined) attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_EXECUTE_TOOL;
    if (target.uri !== undefined && this.recordUris) attributes[ATTR_MCP_RESOURCE_URI] = target.uri;
    if (start.id !== undefined) attributes[ATTR_JSONRPC_REQUEST_ID] = bounded(String(start.id), this.maxLength);
    if (start.protocolVersion !== undefined)
      attributes[ATTR_MCP_PROTOCOL_VERSION] = bounded(start.protocolVersion, this.maxLength);
    Object.assign(attributes, this.sessionAttributes(start.sessionId));
    Object.assign(attributes, clientAttributes(start.request));
    const extra = this.options.attributes;
    if (extra) {
      try {
        const own = extra({
          method,
          target: target.tool ?? target.prompt ?? target.uri,
          transport: start.transport,
          sessionId: start.sessionId,
          principal: start.principal,
          request: start.request,
        });
        if (own) Object.assign(attributes, boundAttributes({ ...own }, this.maxLength));
      } catch {
        // An application's callback never breaks a request.
      }
    }
    return attributes;
  }
}

/**
 * A backend's failure as a span error: the first word of a Redis error (`ERR`, `NOSCRIPT`,
 * `BUSY`), as the database conventions' `error.type` and `db.response.status_code` take it, else
 * the error's name.
 */
function backendError(error: unknown): { code?: string; message: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  const prefix = /^([A-Z][A-Z_]+)\s/.exec(error.message)?.[1];
  return { code: prefix ?? error.name, message: error.message };
}
