/** The results as rows (one per metric, one column per server, then the ratios), for the console and the docs. */
import { SERVER_KINDS, SERVER_LABELS, type ServerKind } from '../client/server-process.js';
import type {
  BenchMeta,
  EchoResult,
  FanoutResult,
  MemoryResult,
  RatioKey,
  ResourcesResult,
  TableRow,
  TargetResult,
} from '../types.js';

/** Each ratio column: `mine` ÷ `other`, metric by metric within the run. */
export const RATIO_COLUMNS: ReadonlyArray<{ key: RatioKey; mine: ServerKind; other: ServerKind }> = [
  { key: '1:2', mine: 'library', other: 'sdk' },
  { key: '1:3', mine: 'library', other: 'nest-floor' },
  { key: '1:4', mine: 'library', other: 'node-floor' },
  { key: '1:T', mine: 'library', other: 'tmcp' },
  { key: 'D:2', mine: 'library-direct', other: 'sdk' },
  { key: 'D:4', mine: 'library-direct', other: 'node-floor' },
  { key: 'D:T', mine: 'library-direct', other: 'tmcp' },
];

/** The legend of the ratio columns (console and docs/benchmarks.md). */
export const RATIO_LEGEND =
  "Ratios are a library server ÷ another server, within the same run: 1:2, 1:3, 1:4, 1:T this library (controller mount) ÷ the official SDK, ÷ bare Nest, ÷ bare node:http, ÷ tmcp; D:2, D:4, D:T this library with the direct mount (`http: { mount: 'direct' }`) ÷ the official SDK, ÷ bare node:http, ÷ tmcp; ↑ higher is better, ↓ lower is better.";

function row(
  section: string,
  metric: string,
  unit: string,
  better: 'higher' | 'lower',
  values: Partial<Record<ServerKind, number | undefined>>,
): TableRow {
  const clean: Partial<Record<ServerKind, number>> = {};
  for (const kind of SERVER_KINDS) {
    const value = values[kind];
    if (value !== undefined && Number.isFinite(value)) clean[kind] = value;
  }
  const ratios: Partial<Record<RatioKey, number>> = {};
  for (const { key, mine, other } of RATIO_COLUMNS) {
    const a = clean[mine];
    const b = clean[other];
    if (a !== undefined && b !== undefined && b !== 0) ratios[key] = a / b;
  }
  return { section, metric, unit, better, values: clean, ratios };
}

const byServer = <T extends { server: ServerKind }>(items: T[], pick: (item: T) => number | undefined) =>
  Object.fromEntries(items.map((item) => [item.server, pick(item)])) as Partial<Record<ServerKind, number>>;

export function buildRows(
  echo: EchoResult[],
  fanout: FanoutResult[],
  memory: MemoryResult[],
  resources: ResourcesResult[],
): TableRow[] {
  const rows: TableRow[] = [];
  const concurrencies = [...new Set(echo.flatMap((e) => e.points.map((p) => p.concurrency)))];
  for (const c of concurrencies) {
    const point = (e: EchoResult) => e.points.find((p) => p.concurrency === c);
    rows.push(
      row(
        'tools/call echo',
        `c=${c} throughput`,
        'req/s',
        'higher',
        byServer(echo, (e) => point(e)?.rps),
      ),
    );
    rows.push(
      row(
        'tools/call echo',
        `c=${c} p50 latency`,
        'ms',
        'lower',
        byServer(echo, (e) => point(e)?.p50Ms),
      ),
    );
    rows.push(
      row(
        'tools/call echo',
        `c=${c} p99 latency`,
        'ms',
        'lower',
        byServer(echo, (e) => point(e)?.p99Ms),
      ),
    );
  }

  const ns = [...new Set(fanout.map((f) => f.n))].sort((a, b) => a - b);
  for (const n of ns) {
    const runs = fanout.filter((f) => f.n === n);
    const unsub = runs[0]?.unsubscribed ?? 0;
    rows.push(
      row(
        'fan-out',
        `N=${n} (+${unsub} unsubscribed) time to all`,
        'ms',
        'lower',
        byServer(runs, (f) => f.fanoutMs),
      ),
    );
  }
  for (const n of ns) {
    const runs = fanout.filter((f) => f.n === n);
    rows.push(
      row(
        'fan-out',
        `N=${n} bump (the notifying tools/call) answered`,
        'ms',
        'lower',
        byServer(runs, (f) => f.bumpAnswerMedianMs),
      ),
    );
    rows.push(
      row(
        'fan-out',
        `N=${n} plain echo answered (same phase)`,
        'ms',
        'lower',
        byServer(runs, (f) => f.echoMs),
      ),
    );
  }
  for (const n of ns) {
    const runs = fanout.filter((f) => f.n === n);
    rows.push(
      row(
        'fan-out',
        `N=${n} RSS per session with stream`,
        'KB',
        'lower',
        byServer(runs, (f) => kb(f.rssPerStreamSessionBytes)),
      ),
    );
    rows.push(
      row(
        'fan-out',
        `N=${n} heap per session with stream`,
        'KB',
        'lower',
        byServer(runs, (f) => kb(f.heapPerStreamSessionBytes)),
      ),
    );
  }
  const largest = largestRuns(fanout);
  rows.push(
    row(
      'notify, no subscriber',
      `~10 sessions`,
      'ns',
      'lower',
      byServer(largest, (f) => f.notifyNone?.[0]?.nsPerCall),
    ),
  );
  for (const n of ns) {
    const runs = fanout.filter((f) => f.n === n);
    const sessions = runs[0]?.notifyNone?.[1]?.sessions;
    rows.push(
      row(
        'notify, no subscriber',
        `${sessions ?? '?'} sessions`,
        'ns',
        'lower',
        byServer(runs, (f) => f.notifyNone?.[1]?.nsPerCall),
      ),
    );
  }

  const sizes = [...new Set(memory.flatMap((m) => m.points.map((p) => p.n)))].sort((a, b) => a - b);
  for (const n of sizes) {
    const point = (m: MemoryResult) => m.points.find((p) => p.n === n);
    rows.push(
      row(
        'memory',
        `RSS per idle session @${n}`,
        'KB',
        'lower',
        byServer(memory, (m) => kb(point(m)?.perSessionBytes)),
      ),
    );
    rows.push(
      row(
        'memory',
        `heap per idle session @${n}`,
        'KB',
        'lower',
        byServer(memory, (m) => kb(point(m)?.heapPerSessionBytes)),
      ),
    );
    rows.push(
      row(
        'memory',
        `RSS after deleting ${n} vs baseline`,
        '%',
        'lower',
        byServer(memory, (m) => pct(point(m)?.afterDeleteVsBaseline)),
      ),
    );
  }
  rows.push(
    row(
      'memory',
      'baseline RSS',
      'MiB',
      'lower',
      byServer(memory, (m) => mib(m.baselineRss)),
    ),
  );

  const count = resources[0]?.count;
  if (resources.length > 0) {
    rows.push(
      row(
        'resources',
        `list walk, ${count} resources (pages: ${resources.map((r) => `${r.server} ${r.walk?.pages ?? '?'}`).join(', ')})`,
        'ms',
        'lower',
        byServer(resources, (r) => r.walk?.msPerWalk),
      ),
    );
    rows.push(
      row(
        'resources',
        'read c=16 throughput',
        'req/s',
        'higher',
        byServer(resources, (r) => r.read?.rps),
      ),
    );
    rows.push(
      row(
        'resources',
        'read c=16 p50 latency',
        'ms',
        'lower',
        byServer(resources, (r) => r.read?.p50Ms),
      ),
    );
    rows.push(
      row(
        'resources',
        'read c=16 p99 latency',
        'ms',
        'lower',
        byServer(resources, (r) => r.read?.p99Ms),
      ),
    );
  }
  return rows;
}

/** Per server, the fan-out run with the most sessions. */
export function largestRuns(fanout: FanoutResult[]): FanoutResult[] {
  const best = new Map<ServerKind, FanoutResult>();
  for (const run of fanout) {
    const current = best.get(run.server);
    if (!current || run.n > current.n) best.set(run.server, run);
  }
  return [...best.values()];
}

const kb = (bytes: number | undefined) => (bytes === undefined ? undefined : bytes / 1024);
const mib = (bytes: number | undefined) => (bytes === undefined ? undefined : bytes / 2 ** 20);
const pct = (fraction: number | undefined) => (fraction === undefined ? undefined : fraction * 100);

export function formatValue(value: number | undefined, unit: string): string {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  if (unit === 'req/s' || unit === 'ns') return Math.round(value).toLocaleString('en-US');
  if (unit === '%') return `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;
  if (unit === 'ms') return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

const formatRatio = (ratio: number | undefined) =>
  ratio === undefined || !Number.isFinite(ratio) ? 'n/a' : `${ratio.toFixed(2)}x`;

const HEADERS = ['metric', 'unit', ...SERVER_KINDS.map((k) => SERVER_LABELS[k]), ...RATIO_COLUMNS.map((c) => c.key)];

function cells(row: TableRow): string[] {
  return [
    `${row.section}: ${row.metric}`,
    `${row.unit} (${row.better === 'higher' ? '↑' : '↓'})`,
    ...SERVER_KINDS.map((k) => formatValue(row.values[k], row.unit)),
    ...RATIO_COLUMNS.map((c) => formatRatio(row.ratios[c.key])),
  ];
}

export function consoleTable(rows: TableRow[]): string {
  const body = rows.map(cells);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [RATIO_LEGEND, '', line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function markdown(meta: BenchMeta, rows: TableRow[], targets: TargetResult[]): string {
  const versions = Object.entries(meta.versions)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  const lines = [
    `Benchmark of ${meta.date.slice(0, 10)} (\`npm run bench\`, ${meta.durationS} s per load point${meta.smoke ? ', SMOKE run' : ''}): ${meta.machine.cpus} × ${meta.machine.model}, ${meta.machine.memoryGiB} GiB, Node ${meta.node}; ${versions}${meta.git ? `; commit ${meta.git}` : ''}.`,
    RATIO_LEGEND,
    '',
    `| Metric | Unit | ${SERVER_KINDS.map((k) => SERVER_LABELS[k]).join(' | ')} | ${RATIO_COLUMNS.map((c) => c.key).join(' | ')} |`,
    `|---|---|${[...SERVER_KINDS, ...RATIO_COLUMNS].map(() => '---:').join('|')}|`,
    ...rows.map((r) => `| ${cells(r).join(' | ')} |`),
    '',
    '| Target | Measured | Result |',
    '|---|---|---|',
    ...targets.map(
      (t) =>
        `| ${t.text}${t.informational ? '' : ` (${t.threshold})`} | ${t.detail ?? formatValue(t.value, '')} | ${verdict(t)} |`,
    ),
  ];
  return lines.join('\n');
}

/** A markdown table of targets alone (`heading` names its first column). */
export function targetsMarkdown(heading: string, targets: TargetResult[]): string {
  return [
    `| ${heading} | Measured | Result |`,
    '|---|---|---|',
    ...targets.map((t) => `| ${t.text} (${t.threshold}) | ${t.detail ?? formatValue(t.value, '')} | ${verdict(t)} |`),
  ].join('\n');
}

/** PASS, FAIL, INFO (informational line) or N/A (not measured in this run). */
export function verdict(target: TargetResult): 'PASS' | 'FAIL' | 'INFO' | 'N/A' {
  if (target.informational) return 'INFO';
  return target.pass === null ? 'N/A' : target.pass ? 'PASS' : 'FAIL';
}
