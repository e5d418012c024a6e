import {
  context,
  propagation,
  trace,
  type Context,
  type Link,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';

/** Reads propagation fields from a `_meta` object: string values only. */
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** Reads propagation fields from Node's (lower-cased) HTTP request headers. */
const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

/** Writes propagation fields into a `_meta` object. */
const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** Where a server span starts: its parent context, and the ambient span it links to. */
export interface SpanOrigin {
  readonly parent: Context;
  readonly links?: Link[];
}

/**
 * The parent of the SERVER span of an inbound message, as the MCP conventions ask: the trace
 * context the client put in `params._meta` (`traceparent`, `tracestate`, `baggage`, through the
 * global propagator), linked to the ambient span when there is one (an HTTP server span of the
 * application's own instrumentation); else the ambient context; else, for a message that came
 * in its own HTTP request, that request's `traceparent` header.
 */
export function spanOrigin(params: unknown, headers: unknown): SpanOrigin {
  const active = context.active();
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  if (
    typeof meta === 'object' &&
    meta !== null &&
    typeof (meta as { traceparent?: unknown }).traceparent === 'string'
  ) {
    const parent = propagation.extract(active, meta as Record<string, unknown>, metaGetter);
    const ambient = trace.getSpanContext(active);
    return ambient && trace.isSpanContextValid(ambient) ? { parent, links: [{ context: ambient }] } : { parent };
  }
  // The header fallback is W3C trace context's `traceparent`: most requests carry none, and the
  // propagator is not asked then.
  if (
    trace.getSpanContext(active) ||
    typeof headers !== 'object' ||
    headers === null ||
    (headers as { traceparent?: unknown }).traceparent === undefined
  ) {
    return { parent: active };
  }
  return {
    parent: propagation.extract(active, headers as Record<string, string | string[] | undefined>, headerGetter),
  };
}

/**
 * Puts the active trace context into the `_meta` of a request the server sends the client
 * (elicitation, sampling, roots), so the client's work joins the trace.
 */
export function injectInto(meta: Record<string, unknown>, from: Context = context.active()): void {
  propagation.inject(from, meta, metaSetter);
}

/**
 * `params` with the active trace context added to its `_meta` (a copy; the caller's object is
 * left alone), so a request the server sends the client carries it. Unchanged when no span is
 * active or no propagator writes anything.
 */
export function withTraceContext(params: Record<string, unknown>): Record<string, unknown> {
  const active = context.active();
  const spanContext = trace.getSpanContext(active);
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return params;
  const existing = params._meta;
  const meta: Record<string, unknown> =
    typeof existing === 'object' && existing !== null && !Array.isArray(existing) ? { ...existing } : {};
  const before = Object.keys(meta).length;
  propagation.inject(active, meta, metaSetter);
  return Object.keys(meta).length === before ? params : { ...params, _meta: meta };
}
