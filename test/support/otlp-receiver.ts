/**
 * An OTLP/HTTP receiver for tests (https://opentelemetry.io/docs/specs/otlp/#otlphttp): a
 * `node:http` server on 127.0.0.1 that takes the POSTs to `/v1/traces` and `/v1/metrics`, in
 * either encoding, and keeps what they carried as plain spans and metrics.
 *
 * `http/json` bodies are JSON already. `http/protobuf` bodies are decoded with protobufjs against
 * the part of the OTLP messages the tests read (otlp-protobuf.ts), then turned into the same shape
 * as the JSON mapping: ids in hex, 64-bit integers as strings, enums as numbers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Type } from 'protobufjs';
import { otlpTypes } from './otlp-protobuf.js';
import { until } from './until.js';

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;
export type Attributes = Record<string, AttributeValue>;

/** OTLP's Span.SpanKind. */
export const SPAN_KIND_SERVER = 2;

export interface ReceivedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Attributes;
  /** Status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Attributes;
  scope: string;
}

export interface ReceivedDataPoint {
  attributes: Attributes;
  /** Histograms: the number of values recorded. */
  count?: number;
  /** Sums and gauges. */
  value?: number;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  type: 'histogram' | 'sum' | 'gauge' | 'other';
  dataPoints: ReceivedDataPoint[];
  resource: Attributes;
  scope: string;
}

export interface ReceivedRequest {
  path: string;
  contentType: string;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  readonly requests: ReceivedRequest[];
  readonly spans: ReceivedSpan[];
  readonly metrics: ReceivedMetric[];
  /** Bodies that failed to decode, with why: a test asserts there are none. */
  readonly errors: string[];
  /** Polls (bounded) until a received span matches; resolves with it. */
  waitForSpan(predicate: (span: ReceivedSpan) => boolean, what: string, timeoutMs?: number): Promise<ReceivedSpan>;
  /** Polls (bounded) until a received metric matches; resolves with it. */
  waitForMetric(
    predicate: (metric: ReceivedMetric) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<ReceivedMetric>;
  close(): Promise<void>;
}

/** A protobuf body as the OTLP JSON mapping would have it (bytes in hex, not base64). */
function decodeProtobuf(type: Type, body: Buffer): any {
  const message = type.decode(body);
  return type.toObject(message, { longs: String, enums: Number, bytes: Array, defaults: false, arrays: true });
}

const hex = (value: unknown): string =>
  Array.isArray(value) ? Buffer.from(value as number[]).toString('hex') : typeof value === 'string' ? value : '';

function attributeValue(value: any): AttributeValue {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return ((value.arrayValue?.values ?? []) as any[]).map(attributeValue);
  return undefined;
}

function attributes(list: any[] | undefined): Attributes {
  const result: Attributes = {};
  for (const { key, value } of list ?? []) result[key] = attributeValue(value);
  return result;
}

function spansOf(request: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          name: span.name,
          kind: Number(span.kind ?? 0),
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId) || undefined,
          attributes: attributes(span.attributes),
          statusCode: Number(span.status?.code ?? 0),
          resource,
          scope: scopeSpans.scope?.name ?? '',
        });
      }
    }
  }
  return spans;
}

function metricsOf(request: any): ReceivedMetric[] {
  const metrics: ReceivedMetric[] = [];
  for (const resourceMetrics of request.resourceMetrics ?? []) {
    const resource = attributes(resourceMetrics.resource?.attributes);
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scopeMetrics.metrics ?? []) {
        const [type, data] = metric.histogram
          ? (['histogram', metric.histogram] as const)
          : metric.sum
            ? (['sum', metric.sum] as const)
            : metric.gauge
              ? (['gauge', metric.gauge] as const)
              : (['other', undefined] as const);
        metrics.push({
          name: metric.name,
          unit: metric.unit ?? '',
          type,
          dataPoints: ((data?.dataPoints ?? []) as any[]).map((point) => ({
            attributes: attributes(point.attributes),
            count: point.count === undefined ? undefined : Number(point.count),
            value:
              point.asDouble !== undefined
                ? Number(point.asDouble)
                : point.asInt !== undefined
                  ? Number(point.asInt)
                  : undefined,
          })),
          resource,
          scope: scopeMetrics.scope?.name ?? '',
        });
      }
    }
  }
  return metrics;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const errors: string[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    const contentType = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    const body = await readBody(req);
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
      res.writeHead(404).end();
      return;
    }
    requests.push({ path, contentType });
    try {
      const isTraces = path === '/v1/traces';
      let request: any;
      if (contentType === 'application/json') request = JSON.parse(body.toString('utf8'));
      else if (contentType === 'application/x-protobuf') {
        const { traces, metrics: metricsType } = otlpTypes();
        request = decodeProtobuf(isTraces ? traces : metricsType, body);
      } else throw new Error(`unexpected content type '${contentType}'`);
      if (isTraces) spans.push(...spansOf(request));
      else metrics.push(...metricsOf(request));
    } catch (error) {
      errors.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // An empty ExportServiceResponse (full success), in the encoding of the request.
    if (contentType === 'application/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      errors.push(String(error));
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const waitFor = async <T>(list: T[], predicate: (item: T) => boolean, what: string, timeoutMs: number) => {
    let found: T | undefined;
    await until(
      () => {
        found = list.find(predicate);
        return found !== undefined;
      },
      `${what} (received: ${requests.length} requests, ${spans.length} spans, ${metrics.length} metrics, errors: ${JSON.stringify(errors)})`,
      timeoutMs,
    );
    return found!;
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    spans,
    metrics,
    errors,
    waitForSpan: (predicate, what, timeoutMs = 20_000) => waitFor(spans, predicate, what, timeoutMs),
    waitForMetric: (predicate, what, timeoutMs = 20_000) => waitFor(metrics, predicate, what, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
