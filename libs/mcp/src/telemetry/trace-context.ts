import {
  context,
  propagation,
  trace,
  type Context,
  type Link,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { McpClientTraceContext } from './mcp-telemetry.options.js';

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
 * The parent of the SERVER span of an inbound message. With `parent` (the MCP conventions'
 * default): the trace context the client put in `params._meta` (`traceparent`, `tracestate`,
 * `baggage`, through the global propagator), linked to the ambient span when there is one (an
 * HTTP server span of the application's own instrumentation); else the ambient context; else, for
 * a message that came in its own HTTP request, that request's `traceparent` header.
 *
 * With `link`, the client's context (from `_meta` or the header) is only a link: the span starts
 * under the ambient context (a new trace when there is none), so the server's sampler decides and
 * the client cannot choose the trace its span joins. With `ignore`, nothing of the client's is read.
 */
export function spanOrigin(params: unknown, headers: unknown, mode: McpClientTraceContext = 'parent'): SpanOrigin {
  const active = context.active();
  if (mode === 'ignore') return { parent: active };
  const client = clientContext(active, params, headers);
  if (mode === 'link') {
    const linked = client && trace.getSpanContext(client);
    return linked && trace.isSpanContextValid(linked)
      ? { parent: active, links: [{ context: linked }] }
      : { parent: active };
  }
  if (client === undefined) return { parent: active };
  const ambient = trace.getSpanContext(active);
  return ambient && trace.isSpanContextValid(ambient)
    ? { parent: client, links: [{ context: ambient }] }
    : { parent: client };
}

/**
 * The client's trace context: from `params._meta`, else (when no span is ambient) the HTTP
 * request's `traceparent` header; undefined when it sent neither.
 */
function clientContext(active: Context, params: unknown, headers: unknown): Context | undefined {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  if (
    typeof meta === 'object' &&
    meta !== null &&
    typeof (meta as { traceparent?: unknown }).traceparent === 'string'
  ) {
    return propagation.extract(active, meta as Record<string, unknown>, metaGetter);
  }
  // The header fallback is W3C trace context's `traceparent`: most requests carry none, and the
  // propagator is not asked then.
  if (
    trace.getSpanContext(active) ||
    typeof headers !== 'object' ||
    headers === null ||
    (headers as { traceparent?: unknown }).traceparent === undefined
  ) {
    return undefined;
  }
  return propagation.extract(active, headers as Record<string, string | string[] | undefined>, headerGetter);
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
