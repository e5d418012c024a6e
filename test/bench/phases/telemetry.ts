/**
 * What the library's OpenTelemetry instrumentation costs: `tools/call echo` at
 * concurrency 16 on one legacy session, per mount, on three library fixtures up at once:
 *
 * - `off`: `telemetry: { tracing: false, metrics: false }`, the build without instrumentation
 *   (the dispatcher gets the shared no-op operation);
 * - `api`: the default, with no OpenTelemetry SDK installed: the API's no-op tracer and meter run;
 * - `sdk`: the OpenTelemetry Node SDK started in the server before the app, a batch span
 *   processor and a periodic metric reader exporting over OTLP/HTTP (protobuf) to the bench's own
 *   receiver (client/otlp-receiver.ts).
 *
 * The three take turns for `BENCH_TELEMETRY_ROUNDS` rounds of `BENCH_TELEMETRY_DURATION` seconds
 * each, the order rotating from round to round (off-api-sdk, api-sdk-off, sdk-off-api, ...), so
 * that no mode always runs right after the same one. Reported: each mode's best round, the median
 * of its rounds, and api ÷ off and sdk ÷ off both as best round ÷ best round and as the median of
 * the per-round ratios; every round is kept. The server's CPU per answered request is read over
 * IPC around each point. At the end, the receiver must have got trace exports from the `sdk`
 * server: an SDK that exported nothing would make its ratio meaningless.
 */
import type { LoadResult } from '../client/load.js';
import { countsDelta, OtlpReceiver } from '../client/otlp-receiver.js';
import { LIBRARY_KINDS, MOUNT_LABELS, ServerProcess, type ServerKind } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { TelemetryMode, TelemetryMountResult, TelemetryPoint, TelemetryRatio, TelemetryResult } from '../types.js';
import { echoSession } from './echo.js';
import { cpuUsOf } from './redis.js';

export const TELEMETRY_MODES: readonly TelemetryMode[] = ['off', 'api', 'sdk'];
const CONCURRENCY = 16;

export const median = (values: number[]): number | undefined => {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The round with the most answers per second (a round with any error loses). */
const bestOf = (points: TelemetryPoint[]): TelemetryPoint | undefined => {
  const score = (point: TelemetryPoint) => (point.errors === 0 ? point.rps : -1);
  return points.length === 0 ? undefined : points.reduce((best, point) => (score(point) > score(best) ? point : best));
};

/** One mode's server with its session, warmed up, measured on demand. */
interface ModeLoad {
  readonly mode: TelemetryMode;
  readonly server: ServerProcess;
  warmup?: LoadResult;
  /** Requests answered so far (warm-up and points). */
  answered: number;
  measure(): Promise<TelemetryPoint>;
  close(): Promise<void>;
}

async function startMode(
  config: BenchConfig,
  kind: ServerKind,
  mode: TelemetryMode,
  receiver: OtlpReceiver,
): Promise<ModeLoad> {
  const server = await ServerProcess.start(kind, {
    env: { BENCH_TELEMETRY: mode, ...(mode === 'sdk' ? { BENCH_OTLP_URL: receiver.url } : {}) },
    startTimeoutMs: 60_000,
  });
  const echo = await echoSession(config, server);
  try {
    const state: ModeLoad = {
      mode,
      server,
      answered: 0,
      measure: async () => {
        const before = await cpuUsOf(server);
        const point: TelemetryPoint = await echo.load(CONCURRENCY, config.telemetryDurationS);
        const answered = point.ok + point.errors;
        point.serverCpuUsPerRequest = ((await cpuUsOf(server)) - before) / Math.max(1, answered);
        state.answered += answered;
        return point;
      },
      close: echo.close,
    };
    state.warmup = await echo.load(CONCURRENCY, config.warmupS);
    state.answered += state.warmup.ok + state.warmup.errors;
    return state;
  } catch (error) {
    await echo.close();
    throw error;
  }
}

function ratioOf(rounds: TelemetryMountResult['rounds'], best: TelemetryMountResult['best'], mode: TelemetryMode) {
  const perRound = rounds
    .filter((round) => round.points.off.rps > 0 && round.points.off.errors === 0 && round.points[mode].errors === 0)
    .map((round) => round.points[mode].rps / round.points.off.rps);
  const cpuRounds = rounds
    .filter((round) => (round.points.off.serverCpuUsPerRequest ?? 0) > 0)
    .map((round) => (round.points[mode].serverCpuUsPerRequest ?? Number.NaN) / round.points.off.serverCpuUsPerRequest!)
    .filter(Number.isFinite);
  const ratio: TelemetryRatio = {
    rounds: perRound,
    medianOfRounds: median(perRound),
    cpuRounds,
    cpuMedianOfRounds: median(cpuRounds),
  };
  const [mine, off] = [best[mode], best.off];
  if (mine && off && mine.errors === 0 && off.errors === 0 && off.rps > 0) ratio.best = mine.rps / off.rps;
  return ratio;
}

const x = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(3)}x`);

async function runMount(
  config: BenchConfig,
  kind: ServerKind,
  receiver: OtlpReceiver,
  log: (line: string) => void,
): Promise<TelemetryMountResult> {
  const result: TelemetryMountResult = {
    server: kind,
    warmup: {},
    rounds: [],
    best: {},
    medianRps: {},
    medianCpuUsPerRequest: {},
    apiVsOff: { rounds: [] },
    sdkVsOff: { rounds: [] },
    errors: 0,
  };
  const atStart = receiver.snapshot();
  const loads: ModeLoad[] = [];
  try {
    // One after the other: three Nest start-ups at once on two cores only slow each other down.
    for (const mode of TELEMETRY_MODES) {
      const load = await startMode(config, kind, mode, receiver);
      loads.push(load);
      result.warmup[mode] = load.warmup;
      result.errors += load.warmup?.errors ?? 0;
    }
    const byMode = Object.fromEntries(loads.map((load) => [load.mode, load])) as Record<TelemetryMode, ModeLoad>;
    for (let round = 0; round < config.telemetryRounds; round++) {
      const order = TELEMETRY_MODES.map((_, i) => TELEMETRY_MODES[(round + i) % TELEMETRY_MODES.length]);
      const points = {} as Record<TelemetryMode, TelemetryPoint>;
      for (const mode of order) points[mode] = await byMode[mode].measure();
      result.rounds.push({ order, points });
      const errors = TELEMETRY_MODES.reduce((sum, mode) => sum + points[mode].errors, 0);
      result.errors += errors;
      const firstError = TELEMETRY_MODES.map((mode) => points[mode].firstError).find(Boolean);
      log(
        `  ${MOUNT_LABELS[kind]}, round ${round + 1} (${order.join(', ')}): ${TELEMETRY_MODES.map((mode) => `${mode} ${points[mode].rps.toFixed(0)} req/s (${points[mode].serverCpuUsPerRequest?.toFixed(1)} µs CPU)`).join(', ')}; api/off ${x(points.api.rps / points.off.rps)}, sdk/off ${x(points.sdk.rps / points.off.rps)}; errors ${errors}${firstError ? ` (${firstError})` : ''}`,
      );
    }
    result.exportsDuringRounds = countsDelta(atStart, receiver.snapshot());
    result.sdkRequests = byMode.sdk.answered;
  } catch (error) {
    result.error = (error as Error).message;
    result.errors++;
    log(`  ${MOUNT_LABELS[kind]}: FAILED ${result.error}\n${loads.map((load) => load.server.log).join('\n')}`);
  } finally {
    // The sdk server flushes its queued spans and last metrics as it exits.
    await Promise.all(loads.map((load) => load.close()));
  }
  result.exportsTotal = countsDelta(atStart, receiver.snapshot());

  for (const mode of TELEMETRY_MODES) {
    const points = result.rounds.map((round) => round.points[mode]);
    result.best[mode] = bestOf(points);
    result.medianRps[mode] = median(points.map((point) => point.rps));
    result.medianCpuUsPerRequest[mode] = median(
      points.flatMap((point) => (point.serverCpuUsPerRequest === undefined ? [] : [point.serverCpuUsPerRequest])),
    );
  }
  result.apiVsOff = ratioOf(result.rounds, result.best, 'api');
  result.sdkVsOff = ratioOf(result.rounds, result.best, 'sdk');

  if (!result.error && (result.exportsTotal.traces.requests === 0 || result.exportsTotal.traces.spans === 0)) {
    result.error = `the sdk server exported no spans to the receiver (${result.exportsTotal.traces.requests} trace exports)`;
    result.errors++;
  }
  const exported = result.exportsTotal;
  const during = result.exportsDuringRounds;
  log(
    `  ${MOUNT_LABELS[kind]}: best of ${result.rounds.length} rounds ${TELEMETRY_MODES.map((mode) => `${mode} ${result.best[mode]?.rps.toFixed(0) ?? 'n/a'}`).join(', ')} req/s; api/off ${x(result.apiVsOff.best)} best, ${x(result.apiVsOff.medianOfRounds)} median of rounds (CPU per request ${x(result.apiVsOff.cpuMedianOfRounds)}); sdk/off ${x(result.sdkVsOff.best)} best, ${x(result.sdkVsOff.medianOfRounds)} median of rounds (CPU per request ${x(result.sdkVsOff.cpuMedianOfRounds)})`,
  );
  log(
    `  ${MOUNT_LABELS[kind]}, OTLP receiver: ${exported.traces.requests} trace exports (${(exported.traces.bytes / 1024).toFixed(0)} KB, ${exported.traces.spans ?? '?'} spans for ${result.sdkRequests ?? '?'} requests answered; ${during?.traces.requests ?? 0} exports while the rounds ran), ${exported.metrics.requests} metric exports (${(exported.metrics.bytes / 1024).toFixed(1)} KB)${result.error ? `; FAILED ${result.error}` : ''}`,
  );
  return result;
}

export async function runTelemetry(config: BenchConfig, log: (line: string) => void): Promise<TelemetryResult> {
  const result: TelemetryResult = {
    rounds: config.telemetryRounds,
    durationS: config.telemetryDurationS,
    concurrency: CONCURRENCY,
    mounts: [],
    errors: 0,
  };
  let receiver: OtlpReceiver | undefined;
  try {
    receiver = await OtlpReceiver.start();
    log(`  OTLP/HTTP receiver on ${receiver.url} (in the bench process)`);
    for (const kind of LIBRARY_KINDS.filter((k) => config.servers.includes(k))) {
      const mount = await runMount(config, kind, receiver, log);
      result.mounts.push(mount);
      result.errors += mount.errors;
    }
  } catch (error) {
    result.error = (error as Error).message;
    result.errors++;
    log(`  telemetry: FAILED ${result.error}`);
  } finally {
    await receiver?.close();
  }
  return result;
}
