/**
 * The reference gateway's OpenTelemetry SDK, configured by the standard `OTEL_*` variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/) and
 * started before the Nest application exists: the library takes its tracer and meter from the
 * global API when its module is created.
 *
 * Nothing here imports an SDK package statically. The decision ({@link telemetryPlan}) reads the
 * environment only; the SDK, its exporters and the Prometheus reader are loaded with `import()`
 * once the plan says they are wanted, so a gateway started without telemetry variables loads
 * none of them.
 */
import { Logger } from '@nestjs/common';
import { DiagLogLevel, diag, type DiagLogger } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../gateway.config.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../gateway.info.js';
import { ExportHealth } from './export-health.js';
import { scrapeHandler } from './metrics-scrape.js';

/** What the gateway's telemetry exports, decided from the environment alone. */
export interface TelemetryPlan {
  /** Spans over OTLP: `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set. */
  traces: boolean;
  /** Metrics over OTLP: `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` is set. */
  otlpMetrics: boolean;
  /** Metrics for a Prometheus scrape (`MCP_PROMETHEUS`, `MCP_PROMETHEUS_PORT`). */
  prometheus: boolean;
}

/** The running SDK, as the gateway uses it. */
export interface GatewayTelemetry {
  readonly plan: TelemetryPlan;
  /**
   * Answers a scrape with the current metrics in the Prometheus text format (when the plan has
   * Prometheus); a scrape that fails answers 500, never ends the process.
   */
  readonly prometheus?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Flushes what is pending and stops the SDK; gives up waiting after `timeoutMs`. */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** How long the shutdown waits for the last export before the process goes on exiting. */
export const TELEMETRY_SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * How long it waits when the last export failed: the collector is known unreachable, and the
 * exporter would spend its whole timeout retrying one that will not answer.
 */
export const TELEMETRY_SHUTDOWN_FAILING_TIMEOUT_MS = 500;

/**
 * An export unanswered this long during the shutdown's flush marks the collector unreachable:
 * the shutdown stops waiting for it then (a reachable collector answers in milliseconds).
 */
export const TELEMETRY_SHUTDOWN_STALL_MS = 1_000;

/**
 * The most attribute sets each metric keeps (the SDK's `aggregationCardinalityLimit`, on a view
 * that matches every instrument): past it, new sets are folded into one overflow series
 * (`otel.metric.overflow=true`) instead of growing the memory and the scrape without end.
 */
export const METRIC_CARDINALITY_LIMIT = 2_000;

const isSet = (value: string | undefined): boolean => Boolean(value?.trim());
const isTrue = (value: string | undefined): boolean => value?.trim().toLowerCase() === 'true';

/**
 * Which signals to export. `undefined`: telemetry is off and no SDK module is loaded. A signal
 * with no endpoint of its own and no general one is not exported (the SDK would otherwise send
 * it to `http://localhost:4318`, where usually nothing listens).
 */
export function telemetryPlan(env: NodeJS.ProcessEnv, prometheus: boolean): TelemetryPlan | undefined {
  const general = isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const plan: TelemetryPlan = {
    traces: general || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    otlpMetrics: general || isSet(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT),
    prometheus,
  };
  if (!plan.traces && !plan.otlpMetrics && !plan.prometheus) return undefined;
  if (isTrue(env.OTEL_SDK_DISABLED)) {
    if (prometheus) {
      throw new Error(
        'OTEL_SDK_DISABLED=true turns the OpenTelemetry SDK off, and Prometheus metrics with it: unset OTEL_SDK_DISABLED or MCP_PROMETHEUS',
      );
    }
    return undefined;
  }
  return plan;
}

/** Starts the SDK when the environment asks for telemetry; `undefined` (nothing loaded) otherwise. */
export async function startGatewayTelemetry(
  config: Pick<GatewayConfig, 'prometheus' | 'stdio'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GatewayTelemetry | undefined> {
  const plan = telemetryPlan(env, config.prometheus !== undefined);
  return plan && startTelemetry(plan, { stdio: config.stdio }, env);
}

/**
 * Starts the OpenTelemetry Node SDK for `plan` and registers it globally. Everything the SDK
 * reads from the environment itself stays its own: the exporters' endpoints, headers, protocol
 * (`OTEL_EXPORTER_OTLP_PROTOCOL` and its per-signal variants), `OTEL_TRACES_EXPORTER`,
 * `OTEL_METRICS_EXPORTER`, the sampler, the batch span processor, the export interval, the
 * propagators and the resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
 */
export async function startTelemetry(
  plan: TelemetryPlan,
  options: { stdio: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<GatewayTelemetry> {
  const [{ NodeSDK }, { defaultResource, resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/resources'),
  ]);
  // The OTLP exporters the gateway builds itself are watched: one log line when exports start
  // failing, one when they recover; and a shutdown does not wait long for a collector known gone.
  const health = new ExportHealth(new Logger('Telemetry'), destinationOf(env));
  const traceExporter = plan.traces ? await otlpTraceExporterFromEnv(env, health) : undefined;
  let prometheus: import('@opentelemetry/exporter-prometheus').PrometheusExporter | undefined;
  let serializer: import('@opentelemetry/exporter-prometheus').PrometheusSerializer | undefined;
  let metricReaders: import('@opentelemetry/sdk-metrics').IMetricReader[] | undefined;
  if (plan.prometheus) {
    const { PrometheusExporter, PrometheusSerializer } = await import('@opentelemetry/exporter-prometheus');
    // The gateway serves the scrape itself (behind its Host/Origin checks): no server of the exporter's.
    prometheus = new PrometheusExporter({ preventServerStart: true });
    // The exporter's own defaults (no prefix, no time stamps), used by the gateway's scrape handler.
    serializer = new PrometheusSerializer();
    metricReaders = [prometheus, ...(plan.otlpMetrics ? ((await otlpMetricReadersFromEnv(env, health)) ?? []) : [])];
  } else if (!plan.otlpMetrics) {
    metricReaders = [];
  } else {
    // Undefined (an exporter other than OTLP is named): the SDK builds its own readers.
    metricReaders = await otlpMetricReadersFromEnv(env, health);
  }
  // stdout carries JSON-RPC in stdio mode, and the SDK's console diagnostics (OTEL_LOG_LEVEL) write
  // some levels there: they go to stderr instead, the SDK kept from installing its console logger.
  const logLevel = process.env.OTEL_LOG_LEVEL;
  const quiet = options.stdio && logLevel !== undefined;
  if (quiet) {
    useStderrForDiagnostics(logLevel);
    delete process.env.OTEL_LOG_LEVEL;
  }
  let sdk: import('@opentelemetry/sdk-node').NodeSDK;
  try {
    sdk = new NodeSDK({
      // The lowest-priority attributes: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override them.
      resource: defaultResource().merge(
        resourceFromAttributes({ 'service.name': GATEWAY_NAME, 'service.version': GATEWAY_VERSION }),
      ),
      // No OTLP endpoint for spans: no tracer provider (and no export to a default endpoint).
      // The watched OTLP exporter gets the SDK's batch processor (OTEL_BSP_* still apply).
      ...(plan.traces ? (traceExporter ? { traceExporter } : {}) : { spanProcessors: [] }),
      // Undefined: the SDK builds its readers from OTEL_METRICS_EXPORTER and the variables it names.
      ...(metricReaders ? { metricReaders } : {}),
      // The gateway writes log lines, not OpenTelemetry log records (its lines carry the trace ids).
      logRecordProcessors: [],
      instrumentations: [],
      // Every instrument, the application's too, keeps a bounded number of series.
      views: [{ instrumentName: '*', aggregationCardinalityLimit: METRIC_CARDINALITY_LIMIT }],
    });
    sdk.start();
  } finally {
    if (quiet) process.env.OTEL_LOG_LEVEL = logLevel;
  }
  let stopping: Promise<void> | undefined;
  return {
    plan,
    prometheus:
      prometheus &&
      serializer &&
      scrapeHandler(
        { collect: () => prometheus.collect(), serialize: (metrics) => serializer.serialize(metrics as never) },
        (error) =>
          new Logger('Telemetry').error(
            `A Prometheus scrape failed (answered 500): ${error instanceof Error ? error.message : String(error)}`,
          ),
      ),
    shutdown(timeoutMs = health.isFailing ? TELEMETRY_SHUTDOWN_FAILING_TIMEOUT_MS : TELEMETRY_SHUTDOWN_TIMEOUT_MS) {
      stopping ??= sdk.shutdown().catch((error: unknown) => {
        process.stderr.write(
          `OpenTelemetry shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      });
      return withinTime(stopping, timeoutMs, () => health.stalled(TELEMETRY_SHUTDOWN_STALL_MS));
    },
  };
}

/** The names an `OTEL_*_EXPORTER` variable lists. */
const exporterNames = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);

/** Where the exports go, for the log: the collector's origin (never a path's or a URL's credentials). */
function destinationOf(env: NodeJS.ProcessEnv): string {
  const raw = [
    env.OTEL_EXPORTER_OTLP_ENDPOINT,
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
  ]
    .map((value) => value?.trim())
    .find(Boolean);
  try {
    return raw ? new URL(raw).origin : 'the collector';
  } catch {
    return 'the collector';
  }
}

/**
 * The OTLP span exporter NodeSDK would build from the same variables, watched by `health`; or
 * undefined, leaving the SDK to build its own, when `OTEL_TRACES_EXPORTER` names another exporter
 * or the protocol is gRPC (whose package the gateway does not load).
 */
async function otlpTraceExporterFromEnv(
  env: NodeJS.ProcessEnv,
  health: ExportHealth,
): Promise<import('@opentelemetry/sdk-trace').SpanExporter | undefined> {
  const names = exporterNames(env.OTEL_TRACES_EXPORTER);
  if (names.some((name) => name !== 'otlp')) return undefined;
  const protocol =
    (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim()) ?? 'http/protobuf';
  if (protocol === 'grpc') return undefined;
  const { OTLPTraceExporter } =
    protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  return health.observe(new OTLPTraceExporter(), 'traces');
}

/**
 * The OTLP metric reader NodeSDK would build from the same variables, its exporter watched by
 * `health` (NodeSDK reads `OTEL_METRICS_EXPORTER` only when it is given no reader). `otlp` (the
 * default) and `none` are honoured; the protocol picks the exporter package. Undefined when
 * another exporter is named: beside Prometheus that is none, alone the SDK's own choice.
 */
async function otlpMetricReadersFromEnv(
  env: NodeJS.ProcessEnv,
  health: ExportHealth,
): Promise<import('@opentelemetry/sdk-metrics').IMetricReader[] | undefined> {
  const exporters = exporterNames(env.OTEL_METRICS_EXPORTER);
  if (exporters.includes('none')) return [];
  if (exporters.some((name) => name !== 'otlp')) return undefined;
  const protocol =
    (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim()) ?? 'http/protobuf';
  const { OTLPMetricExporter } =
    protocol === 'http/json'
      ? await import('@opentelemetry/exporter-metrics-otlp-http')
      : await import('@opentelemetry/exporter-metrics-otlp-proto');
  const { PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
  const interval = positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000;
  const timeout = Math.min(positive(env.OTEL_METRIC_EXPORT_TIMEOUT) ?? 30_000, interval);
  return [
    new PeriodicExportingMetricReader({
      exporter: health.observe(new OTLPMetricExporter(), 'metrics'),
      exportIntervalMillis: interval,
      exportTimeoutMillis: timeout,
    }),
  ];
}

function positive(raw: string | undefined): number | undefined {
  const value = Number(raw?.trim() || NaN);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The SDK's diagnostics at `OTEL_LOG_LEVEL`, every level on stderr. */
function useStderrForDiagnostics(logLevel: string): void {
  const name = logLevel.trim().toUpperCase();
  const level: unknown = DiagLogLevel[name as keyof typeof DiagLogLevel];
  if (typeof level !== 'number') return;
  const write =
    (prefix: string) =>
    (message: string, ...args: unknown[]) =>
      process.stderr.write(`${prefix} ${[message, ...args].map(String).join(' ')}\n`);
  const logger: DiagLogger = {
    error: write('[otel] error'),
    warn: write('[otel] warn'),
    info: write('[otel] info'),
    debug: write('[otel] debug'),
    verbose: write('[otel] verbose'),
  };
  diag.setLogger(logger, { logLevel: level, suppressOverrideMessage: true });
}

/** How often the shutdown looks whether an export stalled. */
const STALL_CHECK_MS = 100;

/**
 * `work`, or nothing once `timeoutMs` have passed or `gaveUp()` says waiting is pointless (the
 * timers do not keep the process alive).
 */
export function withinTime(work: Promise<void>, timeoutMs: number, gaveUp: () => boolean = () => false): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let check: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    check = setInterval(() => {
      if (gaveUp()) resolve();
    }, STALL_CHECK_MS);
    check.unref();
  });
  return Promise.race([work, late]).finally(() => {
    clearTimeout(timer);
    clearInterval(check);
  });
}
