/**
 * OpenTelemetry for tests: an SDK tracer provider exporting into memory, a meter provider read on
 * demand, and (once per test file) the global context manager and W3C propagators an application's
 * SDK would install. Pass the providers to the module through `telemetry.tracerProvider` /
 * `meterProvider`, so each test has its own and nothing global is swapped between tests.
 */
import { context, propagation, SpanKind, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  DataPointType,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { TracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace';

let installed = false;

/** The async context manager and the W3C trace-context and baggage propagators, as an SDK installs them. */
export function installOtelGlobals(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
}

/** Keeps every ended span, synchronously (the SDK's exporting processors hand spans over a promise later). */
class EndedSpans implements SpanProcessor {
  ended: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.ended.push(span);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/** A metric reader collected by the test itself. */
class PullReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface MemoryTelemetry {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The ended spans of this name. */
  spansNamed(name: string): ReadableSpan[];
  /** The metrics collected now, by name. */
  metrics(): Promise<Map<string, MetricData>>;
  /** The histogram points of a metric whose attributes include `match`. */
  histogramPoints(name: string, match?: Attributes): Promise<DataPoint<Histogram>[]>;
  /** The gauge or sum points of a metric whose attributes include `match`. */
  valuePoints(name: string, match?: Attributes): Promise<DataPoint<number>[]>;
  reset(): void;
  shutdown(): Promise<void>;
}

const includes = (attributes: Attributes, match: Attributes = {}): boolean =>
  Object.entries(match).every(([key, value]) => attributes[key] === value);

export function memoryTelemetry(): MemoryTelemetry {
  installOtelGlobals();
  const ended = new EndedSpans();
  const tracerProvider = new TracerProvider({ spanProcessors: [ended] });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const metrics = async (): Promise<Map<string, MetricData>> => {
    const { resourceMetrics } = await reader.collect();
    const byName = new Map<string, MetricData>();
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
    }
    return byName;
  };
  return {
    tracerProvider,
    meterProvider,
    spans: () => ended.ended,
    spansNamed: (name) => ended.ended.filter((span) => span.name === name),
    metrics,
    async histogramPoints(name, match) {
      const metric = (await metrics()).get(name);
      if (!metric) return [];
      if (metric.dataPointType !== DataPointType.HISTOGRAM) throw new Error(`${name} is not a histogram`);
      return metric.dataPoints.filter((point) => includes(point.attributes, match));
    },
    async valuePoints(name, match) {
      const metric = (await metrics()).get(name);
      if (!metric) return [];
      if (metric.dataPointType === DataPointType.HISTOGRAM) throw new Error(`${name} is a histogram`);
      return (metric.dataPoints as DataPoint<number>[]).filter((point) => includes(point.attributes, match));
    },
    reset: () => {
      ended.ended = [];
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The span's parent span id, whichever way this SDK version exposes it. */
export const parentSpanIdOf = (span: ReadableSpan): string | undefined =>
  (span as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId ??
  (span as unknown as { parentSpanId?: string }).parentSpanId;

export { SpanKind };
