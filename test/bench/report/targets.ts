/**
 * The throughput targets, as ratios within one run. Where a target says "the same" or
 * "linearly", a tolerance is needed against timer noise; it is stated in each threshold.
 *
 * Every library target is evaluated for both mounts of the library's endpoint, as separate
 * lines: `library` (the controller mount, ids as before) and `library-direct` (the direct mount,
 * ids ending in `-direct`). One informational line gives the direct mount's ratio to the bare
 * `node:http` floor at concurrency 16 ("report its ratio to the bare node:http floor").
 */
import { LIBRARY_KINDS, MOUNT_LABELS, type ServerKind } from '../client/server-process.js';
import type { EchoResult, FanoutResult, MemoryResult, TargetResult } from '../types.js';

const KB = 1024;
/** "Grows linearly (not worse)": the per-subscriber time at 10,000 may be at most this times the one at 1,000. */
export const LINEAR_TOLERANCE = 1.2;
/** "Costs the same": the cost with many sessions may be at most this times the cost with ~10. */
export const SAME_COST_TOLERANCE = 1.5;
/** The direct mount's least share of a bare `node:http` JSON-RPC server's requests per second. */
export const DIRECT_VS_NODE_MIN = 0.55;

const ratioText = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(2)}x`);

export function evaluateTargets(
  echo: EchoResult[],
  fanout: FanoutResult[],
  memory: MemoryResult[],
  totalErrors: number,
): TargetResult[] {
  const targets: TargetResult[] = [];
  const rps16 = (server: ServerKind) =>
    echo.find((e) => e.server === server)?.points.find((p) => p.concurrency === 16)?.rps;
  const ratio = (a?: number, b?: number) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);
  const judge = (value: number | undefined, ok: (v: number) => boolean) => (value === undefined ? null : ok(value));
  const fan = (server: ServerKind, n: number) =>
    fanout.find((f) => f.server === server && f.n === n && f.errors === 0)?.fanoutMs;
  /** Which library kinds this run measured at all (a kind left out by BENCH_SERVERS gets no lines). */
  const measured = (kind: ServerKind) =>
    echo.some((e) => e.server === kind) ||
    fanout.some((f) => f.server === kind) ||
    memory.some((m) => m.server === kind);
  const kinds = LIBRARY_KINDS.filter((kind, i) => i === 0 || measured(kind));

  const suffixOf = (kind: ServerKind) => (kind === 'library' ? '' : '-direct');
  const mountOf = (kind: ServerKind) => ` (${MOUNT_LABELS[kind]})`;

  for (const kind of kinds) {
    const [suffix, mount] = [suffixOf(kind), mountOf(kind)];
    const vsSdk = ratio(rps16(kind), rps16('sdk'));
    targets.push({
      id: `echo-c16-vs-sdk${suffix}`,
      server: kind,
      text: `tools/call at concurrency 16 vs the official SDK server${mount}`,
      threshold: '>= 1.80x',
      value: vsSdk,
      detail: ratioText(vsSdk),
      pass: judge(vsSdk, (v) => v >= 1.8),
    });
  }
  for (const kind of kinds) {
    const [suffix, mount] = [suffixOf(kind), mountOf(kind)];
    const vsNest = ratio(rps16(kind), rps16('nest-floor'));
    targets.push({
      id: `echo-c16-vs-nest${suffix}`,
      server: kind,
      text: `tools/call at concurrency 16 vs the bare-Nest floor${mount}`,
      threshold: '>= 0.90x',
      value: vsNest,
      detail: ratioText(vsNest),
      pass: judge(vsNest, (v) => v >= 0.9),
    });
  }
  if (kinds.includes('library-direct')) {
    const direct = rps16('library-direct');
    const floor = rps16('node-floor');
    const vsNode = ratio(direct, floor);
    // What the direct mount adds to a bare node:http server is the MCP request's own work only.
    targets.push({
      id: 'echo-c16-direct-vs-node',
      server: 'library-direct',
      text: 'tools/call at concurrency 16: direct mount vs the bare node:http floor',
      threshold: `>= ${DIRECT_VS_NODE_MIN.toFixed(2)}x`,
      value: vsNode,
      detail:
        vsNode === undefined ? 'n/a' : `${ratioText(vsNode)} (${direct!.toFixed(0)} vs ${floor!.toFixed(0)} req/s)`,
      pass: judge(vsNode, (v) => v >= DIRECT_VS_NODE_MIN),
    });
  }

  for (const kind of kinds) {
    const [suffix, mount] = [suffixOf(kind), mountOf(kind)];
    const fan1k = ratio(fan(kind, 1_000), fan('sdk', 1_000));
    targets.push({
      id: `fanout-1000-vs-sdk${suffix}`,
      server: kind,
      text: `fan-out to 1,000 subscribers: time vs the official SDK server${mount}`,
      threshold: '<= 0.50x',
      value: fan1k,
      detail: ratioText(fan1k),
      pass: judge(fan1k, (v) => v <= 0.5),
    });
  }
  for (const kind of kinds) {
    const [suffix, mount] = [suffixOf(kind), mountOf(kind)];
    const runs = fanout.filter((f) => f.server === kind && f.fanoutMs !== undefined && f.errors === 0);
    const at1k = runs.find((f) => f.n === 1_000);
    const big = runs.filter((f) => f.n > 1_000).sort((a, b) => b.n - a.n)[0];
    const pair = at1k?.fanoutMs && big?.fanoutMs ? { small: at1k, large: big } : undefined;
    const growth = pair ? pair.large.fanoutMs! / pair.large.n / (pair.small.fanoutMs! / pair.small.n) : undefined;
    targets.push({
      id: `fanout-linear${suffix}`,
      server: kind,
      text: `fan-out grows linearly from 1,000 to ${big?.n.toLocaleString('en-US') ?? '10,000'} subscribers (per-subscriber time, large ÷ 1,000)${mount}`,
      threshold: `<= ${LINEAR_TOLERANCE.toFixed(2)}x`,
      value: growth,
      detail:
        growth === undefined || !pair
          ? 'n/a'
          : `${ratioText(growth)} (${pair.small.fanoutMs?.toFixed(1)} ms -> ${pair.large.fanoutMs?.toFixed(1)} ms for ${(pair.large.n / pair.small.n).toFixed(0)}x the subscribers)`,
      pass: judge(growth, (v) => v <= LINEAR_TOLERANCE),
    });
  }

  for (const kind of kinds) {
    const [suffix, mount] = [suffixOf(kind), mountOf(kind)];
    const mine = memory.find((m) => m.server === kind);
    for (const point of mine?.points ?? []) {
      targets.push({
        id: `memory-per-session-${point.n}${suffix}`,
        server: kind,
        text: `RSS per idle session at ${point.n.toLocaleString('en-US')} sessions${mount}`,
        threshold: '<= 30 KB',
        value: point.perSessionBytes / KB,
        detail: `${(point.perSessionBytes / KB).toFixed(1)} KB`,
        pass: point.perSessionBytes <= 30 * KB,
      });
      targets.push({
        id: `memory-after-delete-${point.n}${suffix}`,
        server: kind,
        text: `RSS after deleting ${point.n.toLocaleString('en-US')} sessions vs the baseline${mount}`,
        threshold: 'within 10%',
        value: point.afterDeleteVsBaseline * 100,
        detail: `${point.afterDeleteVsBaseline >= 0 ? '+' : ''}${(point.afterDeleteVsBaseline * 100).toFixed(1)}%`,
        pass: Math.abs(point.afterDeleteVsBaseline) <= 0.1,
      });
    }
    if (!mine?.points.length) {
      targets.push({
        id: `memory${suffix}`,
        server: kind,
        text: `RSS per idle session${mount}`,
        threshold: '<= 30 KB',
        pass: null,
      });
    }
  }

  for (const kind of kinds) {
    const [suffix, mount] = [suffixOf(kind), mountOf(kind)];
    const largest = fanout
      .filter((f) => f.server === kind && (f.notifyNone?.length ?? 0) >= 2)
      .sort((a, b) => b.n - a.n)[0];
    const few = largest?.notifyNone?.[0];
    const many = largest?.notifyNone?.[1];
    const same = few && many ? many.nsPerCall / few.nsPerCall : undefined;
    targets.push({
      id: `notify-no-subscriber${suffix}`,
      server: kind,
      text: `notifying a URI without subscribers: cost with ${many?.sessions.toLocaleString('en-US') ?? 'many'} vs ${few?.sessions ?? '~10'} open sessions${mount}`,
      threshold: `<= ${SAME_COST_TOLERANCE.toFixed(2)}x`,
      value: same,
      detail:
        same === undefined
          ? 'n/a'
          : `${ratioText(same)} (${few!.nsPerCall.toFixed(0)} ns -> ${many!.nsPerCall.toFixed(0)} ns)`,
      pass: judge(same, (v) => v <= SAME_COST_TOLERANCE),
    });
  }

  targets.push({
    id: 'correctness',
    text: 'every response and notification correct (all servers)',
    threshold: '0 errors',
    value: totalErrors,
    detail: `${totalErrors} errors`,
    pass: totalErrors === 0,
  });
  return targets;
}
