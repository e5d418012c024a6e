/**
 * The Fastify phase's table and targets (phases/fastify.ts), as ratios within one run:
 *
 * - `tools/call` at concurrency 16, the controller mount on Fastify ≥ 0.85× the bare
 *   Nest-on-Fastify floor;
 * - the direct mount on Fastify at least as fast as on Express (≥ 0.95×: the noise left after
 *   the best of interleaved rounds);
 * - fan-out to 1,000 subscribers on Fastify as fast as on Express, per mount (≤ 1.10× the time):
 *   the median round of each, the two servers up at once and taking turns round by round (a
 *   median of a few rounds of a few milliseconds, timer noise included).
 *
 * Informational: the controller mount on Fastify ÷ on Express; the server CPU per `bump` of the
 * fan-out runs on Fastify ÷ on Express, per mount (the same writes on both platforms: what
 * their times differ by that the CPU does not is the machine's noise); and the server CPU per request
 * (median of the rounds) of each mount on Fastify against the floor's, and of the controller
 * mount against the direct mount on Fastify (what Fastify's and Nest's routing and the platform
 * seam add): on a shared machine these move far less than the rates.
 *
 * The official SDK v2 on Fastify (`@modelcontextprotocol/fastify`) is a peer column, no target:
 * its `tools/call` rows (the same call, through its stateless legacy fallback, no session) and
 * the `subscriptions/listen` fan-out rows, which it shares with the library's mounts on Fastify
 * (it has no sessions for the session fan-out: those cells stay empty). Informational: each
 * mount on Fastify against it in throughput, server CPU per request and listen fan-out time.
 */
import { MOUNT_LABELS, SERVER_LABELS, type ServerKind } from '../client/server-process.js';
import type { FastifyResult, ListenFanoutResult, TargetResult } from '../types.js';
import type { PeerTable } from './peer-tables.js';

/** The controller mount on Fastify against the bare Nest-on-Fastify floor. */
export const FASTIFY_FLOOR_MIN = 0.85;
/** "At least as fast" in throughput, with the noise the best of interleaved rounds leaves. */
export const AS_FAST_MIN = 0.95;
/** "As fast" in fan-out time (the median of a few interleaved rounds of milliseconds each). */
export const FANOUT_AS_FAST_MAX = 1.1;

const ratio = (a?: number, b?: number) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);
const judge = (value: number | undefined, ok: (v: number) => boolean) => (value === undefined ? null : ok(value));
const ratioText = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(2)}x`);

/** The mounts on Fastify and their Express counterparts. */
const PAIRS: ReadonlyArray<{ fastify: ServerKind; express: ServerKind }> = [
  { fastify: 'library-fastify', express: 'library' },
  { fastify: 'library-direct-fastify', express: 'library-direct' },
];

const fanoutOf = (result: FastifyResult, kind: ServerKind) =>
  result.fanout.find((f) => f.server === kind && f.errors === 0 && f.fanoutMs !== undefined);

/** Rounds of the fan-out runs at `n` (every run of the phase has the same count). */
const roundsOf = (result: FastifyResult, n: number) => result.fanout.find((f) => f.n === n)?.rounds ?? 0;

/** The official SDK v2 on Fastify: a peer column, no target. */
const SDK: ServerKind = 'sdk-v2-fastify';

/** A server's error-free `subscriptions/listen` fan-out run at `n`. */
const listenOf = (result: FastifyResult, kind: ServerKind, n?: number): ListenFanoutResult | undefined =>
  result.listen?.find((l) => l.server === kind && (n === undefined || l.n === n) && l.errors === 0);

export function fastifyTable(result: FastifyResult | undefined): PeerTable | undefined {
  if (!result) return undefined;
  const columns = ['nest-floor-fastify', ...PAIRS.flatMap((pair) => [pair.fastify, pair.express]), SDK] as ServerKind[];
  const best = result.echo?.best ?? {};
  const rows: PeerTable['rows'] = [
    {
      metric: `tools/call c=16 (best of ${result.echo?.rounds.length ?? 0} interleaved rounds)`,
      unit: 'req/s',
      better: 'higher',
      values: columns.map((kind) => best[kind]?.rps),
    },
    { metric: 'tools/call c=16 p50 latency', unit: 'ms', better: 'lower', values: columns.map((k) => best[k]?.p50Ms) },
    { metric: 'tools/call c=16 p99 latency', unit: 'ms', better: 'lower', values: columns.map((k) => best[k]?.p99Ms) },
    {
      metric: 'tools/call c=16 server CPU per request (median of rounds)',
      unit: 'µs',
      better: 'lower',
      values: columns.map((kind) => result.echo?.cpuMedian[kind]),
    },
  ];
  const sizes = [...new Set(result.fanout.map((f) => f.n))];
  for (const n of sizes) {
    rows.push({
      metric: `fan-out N=${n}: bump → last stream (median of ${roundsOf(result, n)} interleaved rounds)`,
      unit: 'ms',
      better: 'lower',
      values: columns.map(
        (kind) => result.fanout.find((f) => f.server === kind && f.n === n && f.errors === 0)?.fanoutMs,
      ),
    });
    rows.push({
      metric: `fan-out N=${n}: server CPU per bump (median of rounds)`,
      unit: 'ms',
      better: 'lower',
      values: columns.map((kind) => {
        const us = result.fanout.find((f) => f.server === kind && f.n === n && f.errors === 0)?.cpuPerBumpUs;
        return us === undefined ? undefined : us / 1000;
      }),
    });
  }
  for (const n of [...new Set((result.listen ?? []).map((l) => l.n))]) {
    const rounds = result.listen?.find((l) => l.n === n)?.rounds ?? 0;
    rows.push({
      metric: `subscriptions/listen fan-out N=${n}: notify → last stream (median of ${rounds} rounds, servers one after the other)`,
      unit: 'ms',
      better: 'lower',
      values: columns.map((kind) => listenOf(result, kind, n)?.fanoutMs),
    });
    rows.push({
      metric: `subscriptions/listen fan-out N=${n}: server CPU per notification (median round)`,
      unit: 'ms',
      better: 'lower',
      values: columns.map((kind) => listenOf(result, kind, n)?.serverCpuMs),
    });
  }
  return { title: 'Nest on Fastify vs Express', columns: columns.map((kind) => SERVER_LABELS[kind]), rows };
}

export function evaluateFastifyTargets(result: FastifyResult | undefined): TargetResult[] {
  if (!result) return [];
  const targets: TargetResult[] = [];
  const best = result.echo?.best ?? {};
  const rps = (kind: ServerKind) => (best[kind]?.errors === 0 ? best[kind]?.rps : undefined);
  /** `server`'s throughput over `reference`'s, passing at `min` or more. */
  const throughputTarget = (id: string, server: ServerKind, reference: ServerKind, text: string, min: number) => {
    const value = ratio(rps(server), rps(reference));
    targets.push({
      id,
      server,
      text,
      threshold: `>= ${min.toFixed(2)}x`,
      value,
      detail:
        value === undefined
          ? 'n/a'
          : `${ratioText(value)} (${rps(server)!.toFixed(0)} vs ${rps(reference)!.toFixed(0)} req/s)`,
      pass: judge(value, (v) => v >= min),
    });
  };
  throughputTarget(
    'fastify-echo-c16-vs-floor',
    'library-fastify',
    'nest-floor-fastify',
    'tools/call c=16, controller mount on Fastify vs bare Nest on Fastify',
    FASTIFY_FLOOR_MIN,
  );
  throughputTarget(
    'fastify-echo-c16-direct-vs-express',
    'library-direct-fastify',
    'library-direct',
    'tools/call c=16, direct mount on Fastify vs on Express',
    AS_FAST_MIN,
  );
  const controller = ratio(rps('library-fastify'), rps('library'));
  targets.push({
    id: 'fastify-echo-c16-controller-vs-express',
    server: 'library-fastify',
    informational: true,
    text: 'tools/call c=16, controller mount on Fastify vs on Express',
    threshold: 'informational',
    value: controller,
    detail: ratioText(controller),
    pass: null,
  });
  const cpu = (kind: ServerKind) => result.echo?.cpuMedian[kind];
  for (const [id, server, reference, text] of [
    [
      'fastify-cpu-controller-vs-floor',
      'library-fastify',
      'nest-floor-fastify',
      'controller mount on Fastify vs bare Nest on Fastify',
    ],
    [
      'fastify-cpu-direct-vs-floor',
      'library-direct-fastify',
      'nest-floor-fastify',
      'direct mount on Fastify vs bare Nest on Fastify',
    ],
    [
      'fastify-cpu-controller-vs-direct',
      'library-fastify',
      'library-direct-fastify',
      'controller mount vs direct mount on Fastify',
    ],
  ] as const) {
    const value = ratio(cpu(server), cpu(reference));
    targets.push({
      id,
      server,
      informational: true,
      text: `server CPU per tools/call (median of rounds), ${text}`,
      threshold: 'informational',
      value,
      detail:
        value === undefined
          ? 'n/a'
          : `${ratioText(value)} (${cpu(server)!.toFixed(1)} vs ${cpu(reference)!.toFixed(1)} µs)`,
      pass: null,
    });
  }
  // The official SDK v2 on Fastify, a peer: each mount on Fastify against it (informational).
  for (const { fastify } of PAIRS) {
    const suffix = fastify === 'library-fastify' ? '' : '-direct';
    const mount = MOUNT_LABELS[fastify]!;
    const throughput = ratio(rps(fastify), rps(SDK));
    targets.push({
      id: `fastify-echo-c16-vs-sdk${suffix}`,
      server: fastify,
      informational: true,
      text: `tools/call c=16, ${mount} vs the official SDK v2 on Fastify (its stateless legacy fallback)`,
      threshold: 'informational',
      value: throughput,
      detail:
        throughput === undefined
          ? 'n/a'
          : `${ratioText(throughput)} (${rps(fastify)!.toFixed(0)} vs ${rps(SDK)!.toFixed(0)} req/s)`,
      pass: null,
    });
    const cpuRatio = ratio(cpu(fastify), cpu(SDK));
    targets.push({
      id: `fastify-cpu-vs-sdk${suffix}`,
      server: fastify,
      informational: true,
      text: `server CPU per tools/call (median of rounds), ${mount} vs the official SDK v2 on Fastify`,
      threshold: 'informational',
      value: cpuRatio,
      detail:
        cpuRatio === undefined
          ? 'n/a'
          : `${ratioText(cpuRatio)} (${cpu(fastify)!.toFixed(1)} vs ${cpu(SDK)!.toFixed(1)} µs)`,
      pass: null,
    });
    const [mine, sdk] = [listenOf(result, fastify), listenOf(result, SDK)];
    const listenRatio = mine && sdk && mine.n === sdk.n ? ratio(mine.fanoutMs, sdk.fanoutMs) : undefined;
    targets.push({
      id: `fastify-listen-vs-sdk${suffix}`,
      server: fastify,
      informational: true,
      text: `subscriptions/listen fan-out to ${(mine?.n ?? sdk?.n ?? 1_000).toLocaleString('en-US')}, ${mount} vs the official SDK v2 on Fastify (time, one after the other)`,
      threshold: 'informational',
      value: listenRatio,
      detail:
        listenRatio === undefined
          ? 'n/a'
          : `${ratioText(listenRatio)} (${mine!.fanoutMs!.toFixed(1)} vs ${sdk!.fanoutMs!.toFixed(1)} ms)`,
      pass: null,
    });
  }
  for (const { fastify, express } of PAIRS) {
    const [onFastify, onExpress] = [fanoutOf(result, fastify), fanoutOf(result, express)];
    const time = ratio(onFastify?.fanoutMs, onExpress?.fanoutMs);
    targets.push({
      id: `fastify-fanout-vs-express${fastify === 'library-fastify' ? '' : '-direct'}`,
      server: fastify,
      text: `fan-out to ${(onFastify?.n ?? onExpress?.n ?? 1_000).toLocaleString('en-US')} subscribers, ${MOUNT_LABELS[fastify]} vs on Express (median of interleaved rounds)`,
      threshold: `<= ${FANOUT_AS_FAST_MAX.toFixed(2)}x`,
      value: time,
      detail:
        time === undefined
          ? 'n/a'
          : `${ratioText(time)} (${onFastify!.fanoutMs!.toFixed(1)} vs ${onExpress!.fanoutMs!.toFixed(1)} ms, median of ${onFastify!.rounds ?? '?'} rounds each)`,
      pass: judge(time, (v) => v <= FANOUT_AS_FAST_MAX),
    });
    const cpuPerBump = ratio(onFastify?.cpuPerBumpUs, onExpress?.cpuPerBumpUs);
    targets.push({
      id: `fastify-fanout-cpu-vs-express${fastify === 'library-fastify' ? '' : '-direct'}`,
      server: fastify,
      informational: true,
      text: `server CPU per bump of the fan-out (median of rounds), ${MOUNT_LABELS[fastify]} vs on Express`,
      threshold: 'informational',
      value: cpuPerBump,
      detail:
        cpuPerBump === undefined
          ? 'n/a'
          : `${ratioText(cpuPerBump)} (${(onFastify!.cpuPerBumpUs! / 1000).toFixed(2)} vs ${(onExpress!.cpuPerBumpUs! / 1000).toFixed(2)} ms)`,
      pass: null,
    });
  }
  return targets;
}
