/**
 * The stream targets, as ratios within one run (the legacy era: sessions, each with a GET
 * stream), for both mounts of the library:
 *
 * - fan-out of one update to 1,000 subscribed streams: ≤ 1.0× tmcp's time and ≤ 1.3× the bare
 *   Nest floor's; linear to 10,000 (per-subscriber time at 10,000 ≤ LINEAR_TOLERANCE × the
 *   one at 1,000, as the throughput targets count it);
 * - the notifying `tools/call` (`bump`) answered within 1.5× a plain `echo`'s round trip, both
 *   measured in the fan-out phase on the same session (at 1,000 and at the largest N);
 * - `tools/call` at concurrency 16: controller mount ≥ 0.95× bare Nest; direct mount ≥ 0.5× bare
 *   `node:http` and ≥ 3× tmcp;
 * - RSS per idle session and per session with a subscribed stream ≤ 20 KB.
 */
import { LIBRARY_KINDS, MOUNT_LABELS, type ServerKind } from '../client/server-process.js';
import type { EchoResult, FanoutResult, MemoryResult, TargetResult } from '../types.js';
import { DIRECT_VS_NODE_MIN, LINEAR_TOLERANCE } from './targets.js';

const KB = 1024;
/** The notifying call may take at most this times a plain call. */
export const BUMP_VS_ECHO_MAX = 1.5;
export const MEMORY_MAX_KB = 11;

const ratioText = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(2)}x`);
const ratio = (a?: number, b?: number) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);
const judge = (value: number | undefined, ok: (v: number) => boolean) => (value === undefined ? null : ok(value));
const ms = (value: number | undefined) => (value === undefined ? '?' : value.toFixed(value >= 10 ? 1 : 2));

export function evaluateStreamTargets(
  echo: EchoResult[],
  fanout: FanoutResult[],
  memory: MemoryResult[],
): TargetResult[] {
  const targets: TargetResult[] = [];
  const ran = (kind: ServerKind) =>
    echo.some((e) => e.server === kind) ||
    fanout.some((f) => f.server === kind) ||
    memory.some((m) => m.server === kind);
  const kinds = LIBRARY_KINDS.filter(ran);
  const suffix = (kind: ServerKind) => (kind === 'library' ? '' : '-direct');
  const mount = (kind: ServerKind) => ` (${MOUNT_LABELS[kind]})`;
  const run = (server: ServerKind, n: number) =>
    fanout.find((f) => f.server === server && f.n === n && f.errors === 0 && f.fanoutMs !== undefined);
  const rps16 = (server: ServerKind) => {
    const point = echo.find((e) => e.server === server && !e.error)?.points.find((p) => p.concurrency === 16);
    return point && point.errors === 0 ? point.rps : undefined;
  };

  for (const kind of kinds) {
    for (const [peer, label, max] of [
      ['tmcp', 'tmcp', 1],
      ['nest-floor', 'the bare-Nest floor', 1.3],
    ] as const) {
      const mine = run(kind, 1_000)?.fanoutMs;
      const theirs = run(peer, 1_000)?.fanoutMs;
      const value = ratio(mine, theirs);
      targets.push({
        id: `stream-fanout-1000-vs-${peer}${suffix(kind)}`,
        server: kind,
        text: `fan-out to 1,000 subscribed streams: time vs ${label}${mount(kind)}`,
        threshold: `<= ${max.toFixed(2)}x`,
        value,
        detail: value === undefined ? 'n/a' : `${ratioText(value)} (${ms(mine)} vs ${ms(theirs)} ms)`,
        pass: judge(value, (v) => v <= max),
      });
    }
  }
  for (const kind of kinds) {
    const small = run(kind, 1_000);
    const large = fanout
      .filter((f) => f.server === kind && f.n > 1_000 && f.errors === 0 && f.fanoutMs !== undefined)
      .sort((a, b) => b.n - a.n)[0];
    const growth = small && large ? large.fanoutMs! / large.n / (small.fanoutMs! / small.n) : undefined;
    targets.push({
      id: `stream-fanout-linear${suffix(kind)}`,
      server: kind,
      text: `fan-out linear from 1,000 to ${large?.n.toLocaleString('en-US') ?? '10,000'} (per-subscriber time, large ÷ 1,000)${mount(kind)}`,
      threshold: `<= ${LINEAR_TOLERANCE.toFixed(2)}x`,
      value: growth,
      detail:
        growth === undefined ? 'n/a' : `${ratioText(growth)} (${ms(small!.fanoutMs)} -> ${ms(large.fanoutMs)} ms)`,
      pass: judge(growth, (v) => v <= LINEAR_TOLERANCE),
    });
  }
  for (const kind of kinds) {
    const sizes = [...new Set(fanout.filter((f) => f.server === kind).map((f) => f.n))].sort((a, b) => a - b);
    const picked = [...new Set([sizes.find((n) => n === 1_000), sizes[sizes.length - 1]])].filter(
      (n): n is number => n !== undefined,
    );
    for (const n of picked) {
      const f = run(kind, n);
      const value = ratio(f?.bumpAnswerMedianMs, f?.echoMs);
      targets.push({
        id: `stream-bump-vs-echo-${n}${suffix(kind)}`,
        server: kind,
        text: `the notifying tools/call (bump, ${n.toLocaleString('en-US')} subscribers) answered vs a plain echo${mount(kind)}`,
        threshold: `<= ${BUMP_VS_ECHO_MAX.toFixed(2)}x`,
        value,
        detail:
          value === undefined ? 'n/a' : `${ratioText(value)} (${ms(f?.bumpAnswerMedianMs)} vs ${ms(f?.echoMs)} ms)`,
        pass: judge(value, (v) => v <= BUMP_VS_ECHO_MAX),
      });
    }
  }

  const c16 = (kind: ServerKind, peer: ServerKind, label: string, min: number) => {
    const value = ratio(rps16(kind), rps16(peer));
    targets.push({
      id: `stream-echo-c16-vs-${peer}${suffix(kind)}`,
      server: kind,
      text: `tools/call at concurrency 16 vs ${label}${mount(kind)}`,
      threshold: `>= ${min.toFixed(2)}x`,
      value,
      detail:
        value === undefined
          ? 'n/a'
          : `${ratioText(value)} (${rps16(kind)!.toFixed(0)} vs ${rps16(peer)!.toFixed(0)} req/s)`,
      pass: judge(value, (v) => v >= min),
    });
  };
  if (kinds.includes('library')) c16('library', 'nest-floor', 'the bare-Nest floor', 0.95);
  if (kinds.includes('library-direct')) {
    c16('library-direct', 'node-floor', 'the bare node:http floor', DIRECT_VS_NODE_MIN);
    c16('library-direct', 'tmcp', 'tmcp', 3);
  }

  for (const kind of kinds) {
    for (const point of memory.find((m) => m.server === kind)?.points ?? []) {
      const value = point.perSessionBytes / KB;
      targets.push({
        id: `stream-memory-idle-${point.n}${suffix(kind)}`,
        server: kind,
        text: `RSS per idle session at ${point.n.toLocaleString('en-US')} sessions${mount(kind)}`,
        threshold: `<= ${MEMORY_MAX_KB} KB`,
        value,
        detail: `${value.toFixed(1)} KB`,
        pass: value <= MEMORY_MAX_KB,
      });
    }
    for (const f of fanout.filter((r) => r.server === kind && r.n >= 1_000 && r.errors === 0)) {
      if (f.rssPerStreamSessionBytes === undefined) continue;
      const value = f.rssPerStreamSessionBytes / KB;
      targets.push({
        id: `stream-memory-stream-${f.n}${suffix(kind)}`,
        server: kind,
        text: `RSS per session with a subscribed stream at ${f.n.toLocaleString('en-US')} (+${f.unsubscribed.toLocaleString('en-US')} unsubscribed)${mount(kind)}`,
        threshold: `<= ${MEMORY_MAX_KB} KB`,
        value,
        detail: `${value.toFixed(1)} KB`,
        pass: value <= MEMORY_MAX_KB,
      });
    }
  }
  return targets;
}
