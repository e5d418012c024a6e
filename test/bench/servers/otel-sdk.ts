/**
 * The OpenTelemetry Node SDK of the library fixture's `BENCH_TELEMETRY=sdk` mode, as an
 * application would install it: `NodeSDK` with a `BatchSpanProcessor` (its defaults: 512 spans per
 * export, a queue of 2,048, every 5 s or when a batch is full) around the OTLP/HTTP protobuf trace
 * exporter, and a `PeriodicExportingMetricReader` with the OTLP/HTTP protobuf metric exporter,
 * both sending to `<url>/v1/traces` and `<url>/v1/metrics` (the bench's own receiver). No
 * auto-instrumentations, no log exporter. The metric reader exports every 5 s instead of its
 * default 60 s, so that metric exports fall inside the measured rounds too.
 *
 * Loaded only in that mode (a dynamic import), so the `off` and `api` servers never load the SDK.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';

export const SERVICE_NAME = 'bench-library';
/** How often the metric reader exports (its default is 60 s). */
export const METRIC_EXPORT_INTERVAL_MS = 5_000;

/** Starts the SDK (registering the global tracer and meter providers); call before the Nest app is created. */
export function startOtelSdk(baseUrl: string): { shutdown(): Promise<void> } {
  const base = baseUrl.replace(/\/+$/, '');
  const sdk = new NodeSDK({
    serviceName: SERVICE_NAME,
    instrumentations: [],
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${base}/v1/traces` }) })],
    metricReaders: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
        exportIntervalMillis: METRIC_EXPORT_INTERVAL_MS,
        exportTimeoutMillis: METRIC_EXPORT_INTERVAL_MS,
      }),
    ],
    // Without this the SDK would set up an OTLP log exporter to localhost:4318 from the defaults.
    logRecordProcessors: [],
  });
  sdk.start();
  return sdk;
}
