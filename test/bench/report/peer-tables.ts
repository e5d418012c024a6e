/**
 * The tables of the era, listen and Redis phases (one markdown table each, also printed on the
 * console): values side by side with their own columns, since these phases compare other
 * servers (the SDK v2, tmcp) and other configurations (eras, backends) than the main table.
 */
import { SERVER_LABELS, type ServerKind } from '../client/server-process.js';
import type {
  EraResult,
  ListenFanoutResult,
  RedisFanoutResult,
  RedisResult,
  TasksResult,
  TelemetryMode,
  TelemetryResult,
} from '../types.js';
import { formatValue } from './table.js';

export interface PeerTable {
  title: string;
  columns: string[];
  rows: Array<{ metric: string; unit: string; better: 'higher' | 'lower'; values: Array<number | undefined> }>;
}

const ERA_LABEL = { legacy: 'legacy', modern: 'modern' } as const;
const kindLabel = (kind: ServerKind) =>
  kind === 'library' ? 'controller' : kind === 'library-direct' ? 'direct' : SERVER_LABELS[kind];

export function eraTable(era: EraResult[]): PeerTable | undefined {
  if (era.length === 0) return undefined;
  const columns = era.map((e) => `${kindLabel(e.server)} ${ERA_LABEL[e.era]}`);
  const concurrencies = [...new Set(era.flatMap((e) => e.points.map((p) => p.concurrency)))];
  const rows: PeerTable['rows'] = [];
  for (const c of concurrencies) {
    const at = (e: EraResult) => e.points.find((p) => p.concurrency === c);
    rows.push({ metric: `c=${c} throughput`, unit: 'req/s', better: 'higher', values: era.map((e) => at(e)?.rps) });
    rows.push({ metric: `c=${c} p50 latency`, unit: 'ms', better: 'lower', values: era.map((e) => at(e)?.p50Ms) });
    rows.push({ metric: `c=${c} p99 latency`, unit: 'ms', better: 'lower', values: era.map((e) => at(e)?.p99Ms) });
    rows.push({
      metric: `c=${c} server CPU per request`,
      unit: 'µs',
      better: 'lower',
      values: era.map((e) => at(e)?.cpuUsPerRequest),
    });
  }
  return { title: 'tools/call echo by protocol era', columns, rows };
}

export function listenTable(listen: ListenFanoutResult[]): PeerTable | undefined {
  if (listen.length === 0) return undefined;
  const kinds = [...new Set(listen.map((l) => l.server))];
  const sizes = [...new Set(listen.map((l) => l.n))].sort((a, b) => a - b);
  const at = (kind: ServerKind, n: number) => listen.find((l) => l.server === kind && l.n === n && l.errors === 0);
  const rows: PeerTable['rows'] = [];
  for (const n of sizes) {
    rows.push({
      metric: `N=${n} notify → last listener`,
      unit: 'ms',
      better: 'lower',
      values: kinds.map((k) => at(k, n)?.fanoutMs),
    });
    rows.push({
      metric: `N=${n} notify → median listener`,
      unit: 'ms',
      better: 'lower',
      values: kinds.map((k) => at(k, n)?.p50ArrivalMs),
    });
    rows.push({
      metric: `N=${n} server CPU per notification`,
      unit: 'ms',
      better: 'lower',
      values: kinds.map((k) => at(k, n)?.serverCpuMs),
    });
  }
  return { title: 'subscriptions/listen fan-out', columns: kinds.map(kindLabel), rows };
}

export function redisTable(redis: RedisResult | undefined): PeerTable | undefined {
  if (!redis) return undefined;
  const rows: PeerTable['rows'] = [];
  fanoutRows(rows, redis.fanout, redis.singleInstance, 'stream');
  if (redis.listenFanout) fanoutRows(rows, redis.listenFanout, redis.listenSingleInstance, 'listener');
  rows.push({
    metric: 'tools/call c=16, in-memory backend (direct mount)',
    unit: 'req/s',
    better: 'higher',
    values: [redis.echo?.memory.rps],
  });
  rows.push({
    metric: 'tools/call c=16, Redis backend (direct mount)',
    unit: 'req/s',
    better: 'higher',
    values: [redis.echo?.redis.rps],
  });
  if (redis.memory) {
    rows.push({
      metric: `idle session in Redis: used_memory per session (${redis.memory.sessions})`,
      unit: 'KB',
      better: 'lower',
      values: [redis.memory.usedMemoryPerSessionBytes / 1024],
    });
    rows.push({
      metric: `idle session in Redis: MEMORY USAGE of its ${redis.memory.keysPerSession.toFixed(0)} keys`,
      unit: 'KB',
      better: 'lower',
      values: [redis.memory.memoryUsagePerSessionBytes / 1024],
    });
  }
  return { title: `Redis backend (redis-server ${redis.redisVersion ?? '?'})`, columns: ['value'], rows };
}

export function tasksTable(tasks: TasksResult | undefined): PeerTable | undefined {
  if (!tasks) return undefined;
  const rows: PeerTable['rows'] = [
    { metric: 'tasks created (64 calls in flight)', unit: 'req/s', better: 'higher', values: [tasks.createdPerSecond] },
    {
      metric: 'plain tools/call echo, the same way',
      unit: 'req/s',
      better: 'higher',
      values: [tasks.echoPerSecond],
    },
    {
      metric: `tasks/get at the poll interval (${tasks.polls ?? 0} polls): p50`,
      unit: 'ms',
      better: 'lower',
      values: [tasks.pollP50Ms],
    },
    { metric: 'tasks/get at the poll interval: p99', unit: 'ms', better: 'lower', values: [tasks.pollP99Ms] },
    {
      metric: 'Redis round trips per poll (target 1)',
      unit: 'round trips',
      better: 'lower',
      values: [tasks.roundTripsPerPoll],
    },
    {
      metric: 'commands run inside the script per poll',
      unit: 'commands',
      better: 'lower',
      values: [tasks.scriptCommandsPerPoll],
    },
  ];
  return {
    title: `Tasks: ${tasks.n} on ${tasks.instances} instances sharing Redis, polled every ${tasks.pollIntervalMs ?? '?'} ms`,
    columns: ['value'],
    rows,
  };
}

/**
 * The telemetry phase: per mount, `off`, `api` and `sdk` side by side (best round, median round,
 * the ratios to `off` both ways, server CPU per request, what the receiver got from `sdk`).
 */
export function telemetryTable(telemetry: TelemetryResult | undefined): PeerTable | undefined {
  if (!telemetry || telemetry.mounts.length === 0) return undefined;
  const modes: readonly TelemetryMode[] = ['off', 'api', 'sdk'];
  const cells = telemetry.mounts.flatMap((mount) => modes.map((mode) => ({ mount, mode })));
  const ratioOf = (mode: TelemetryMode, mount: TelemetryResult['mounts'][number]) =>
    mode === 'off' ? undefined : mode === 'api' ? mount.apiVsOff : mount.sdkVsOff;
  const rows: PeerTable['rows'] = [
    {
      metric: 'c=16 throughput, best round',
      unit: 'req/s',
      better: 'higher',
      values: cells.map(({ mount, mode }) => mount.best[mode]?.rps),
    },
    {
      metric: 'c=16 throughput, median round',
      unit: 'req/s',
      better: 'higher',
      values: cells.map(({ mount, mode }) => mount.medianRps[mode]),
    },
    {
      metric: '÷ off: median of the per-round ratios',
      unit: 'x',
      better: 'higher',
      values: cells.map(({ mount, mode }) => ratioOf(mode, mount)?.medianOfRounds),
    },
    {
      metric: '÷ off: best round ÷ best round',
      unit: 'x',
      better: 'higher',
      values: cells.map(({ mount, mode }) => ratioOf(mode, mount)?.best),
    },
    {
      metric: 'server CPU per request, median round',
      unit: 'µs',
      better: 'lower',
      values: cells.map(({ mount, mode }) => mount.medianCpuUsPerRequest[mode]),
    },
    {
      metric: 'server CPU per request ÷ off: median of the per-round ratios',
      unit: 'x',
      better: 'lower',
      values: cells.map(({ mount, mode }) => ratioOf(mode, mount)?.cpuMedianOfRounds),
    },
    {
      metric: 'p50 latency, best round',
      unit: 'ms',
      better: 'lower',
      values: cells.map(({ mount, mode }) => mount.best[mode]?.p50Ms),
    },
    {
      metric: 'spans the OTLP receiver got',
      unit: 'spans',
      better: 'higher',
      values: cells.map(({ mount, mode }) => (mode === 'sdk' ? mount.exportsTotal?.traces.spans : undefined)),
    },
    {
      metric: 'requests the sdk server answered (warm-up and rounds)',
      unit: 'requests',
      better: 'higher',
      values: cells.map(({ mount, mode }) => (mode === 'sdk' ? mount.sdkRequests : undefined)),
    },
  ];
  return {
    title: `Telemetry overhead: tools/call echo c=16, ${telemetry.rounds} interleaved rounds of ${telemetry.durationS} s`,
    columns: cells.map(({ mount, mode }) => `${kindLabel(mount.server)} ${mode}`),
    rows,
  };
}

function format(value: number | undefined, unit: string): string {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  switch (unit) {
    case 'x':
      // Rounded down, so that a ratio printed as 0.980x is at least 0.98.
      return `${(Math.floor(value * 1000) / 1000).toFixed(3)}x`;
    case 'spans':
    case 'requests':
      return Math.round(value).toLocaleString('en-US');
    case 'round trips':
    case 'commands/request':
      return value.toFixed(3);
    case 'µs':
    case 'KB':
      return value.toFixed(value >= 100 ? 0 : 1);
    default:
      return formatValue(value, unit);
  }
}

const cells = (row: PeerTable['rows'][number]) => [
  row.metric,
  `${row.unit} (${row.better === 'higher' ? '↑' : '↓'})`,
  ...row.values.map((v) => format(v, row.unit)),
];

export function peerMarkdown(table: PeerTable): string {
  return [
    `| ${table.title} | Unit | ${table.columns.join(' | ')} |`,
    `|---|---|${table.columns.map(() => '---:').join('|')}|`,
    ...table.rows.map((r) => `| ${cells(r).join(' | ')} |`),
  ].join('\n');
}

export function peerConsole(table: PeerTable): string {
  const header = [table.title, 'unit', ...table.columns];
  const body = table.rows.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The rows of one era's fan-out across the instances, then its one-process reference. */
function fanoutRows(
  rows: PeerTable['rows'],
  fanout: RedisFanoutResult[],
  single: RedisFanoutResult | undefined,
  recipient: 'stream' | 'listener',
): void {
  const what = recipient === 'listener' ? 'listen fan-out' : 'fan-out';
  for (const f of fanout) {
    const ok = f.errors === 0;
    rows.push({
      metric: `${what} N=${f.n} over ${f.instances} instances: notify → last ${recipient}`,
      unit: 'ms',
      better: 'lower',
      values: [ok ? f.fanoutMs : undefined],
    });
    rows.push({
      metric: `${what} N=${f.n}: CPU of the ${f.instances} instances per notification`,
      unit: 'ms',
      better: 'lower',
      values: [ok ? f.serverCpuMs : undefined],
    });
    rows.push({
      metric: `${what} N=${f.n}: Redis commands per notification`,
      unit: 'commands',
      better: 'lower',
      values: [ok ? f.commandsPerNotification : undefined],
    });
  }
  if (single) {
    rows.push({
      metric: `${what} N=${single.n} on one in-memory process (the single-instance reference): notify → last ${recipient}`,
      unit: 'ms',
      better: 'lower',
      values: [single.errors === 0 ? single.fanoutMs : undefined],
    });
  }
}
