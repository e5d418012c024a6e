/**
 * The results as one chart: grouped bar panels drawn as SVG by hand, converted to PNG with
 * `@resvg/resvg-js` (a native addon that comes as a per-platform npm package: no external
 * binary, no browser). Text uses the system's fonts (DejaVu Sans here).
 */
import { Resvg } from '@resvg/resvg-js';
import { SERVER_KINDS, SERVER_LABELS, type ServerKind } from '../client/server-process.js';
import type { BenchMeta, EchoResult, FanoutResult, MemoryResult, ResourcesResult } from '../types.js';

const COLORS: Record<ServerKind, string> = {
  library: '#d9480f',
  sdk: '#1c7ed6',
  'nest-floor': '#5c940d',
  'node-floor': '#868e96',
  'library-direct': '#ae3ec9',
  'sdk-v2': '#1864ab',
  tmcp: '#e67700',
  'library-redis': '#c2255c',
  'library-fastify': '#f76707',
  'library-direct-fastify': '#862e9c',
  'nest-floor-fastify': '#2b8a3e',
  'sdk-v2-fastify': '#4dabf7',
};

interface Panel {
  title: string;
  groups: string[];
  /** values[group][server] */
  values: Array<Partial<Record<ServerKind, number>>>;
  log?: boolean;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const short = (v: number): string => {
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${Number((v / 1e3).toFixed(1))}k`;
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
};

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function panel(x: number, y: number, w: number, h: number, p: Panel): string {
  const out: string[] = [];
  const left = x + 56;
  const top = y + 30;
  const plotW = w - 70;
  const plotH = h - 70;
  const bottom = top + plotH;
  out.push(
    `<text x="${x + w / 2}" y="${y + 16}" text-anchor="middle" font-size="14" font-weight="bold">${esc(p.title)}</text>`,
  );
  const all = p.values.flatMap((g) => Object.values(g)).filter((v): v is number => v !== undefined && v > 0);
  if (all.length === 0) {
    out.push(
      `<text x="${x + w / 2}" y="${y + h / 2}" text-anchor="middle" font-size="12" fill="#868e96">not measured</text>`,
    );
    return out.join('\n');
  }
  let scale: (v: number) => number;
  const ticks: number[] = [];
  if (p.log) {
    const lo = 10 ** Math.floor(Math.log10(Math.min(...all)));
    const hi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
    scale = (v) =>
      bottom - ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1)) * plotH;
    for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
  } else {
    const max = niceMax(Math.max(...all));
    scale = (v) => bottom - (v / max) * plotH;
    for (let i = 0; i <= 4; i++) ticks.push((max / 4) * i);
  }
  for (const t of ticks) {
    const ty = scale(t);
    out.push(`<line x1="${left}" y1="${ty}" x2="${left + plotW}" y2="${ty}" stroke="#e9ecef"/>`);
    out.push(`<text x="${left - 6}" y="${ty + 4}" text-anchor="end" font-size="10" fill="#495057">${short(t)}</text>`);
  }
  out.push(`<line x1="${left}" y1="${bottom}" x2="${left + plotW}" y2="${bottom}" stroke="#495057"/>`);
  const groupW = plotW / p.groups.length;
  const barW = Math.min(34, (groupW * 0.8) / SERVER_KINDS.length);
  p.groups.forEach((group, gi) => {
    const start = left + gi * groupW + (groupW - barW * SERVER_KINDS.length) / 2;
    SERVER_KINDS.forEach((kind, si) => {
      const value = p.values[gi]?.[kind];
      const bx = start + si * barW;
      if (value === undefined || !(value > 0)) {
        out.push(
          `<text x="${bx + barW / 2}" y="${bottom - 4}" text-anchor="middle" font-size="8" fill="#adb5bd">–</text>`,
        );
        return;
      }
      const by = scale(value);
      out.push(
        `<rect x="${bx + 1}" y="${by}" width="${barW - 2}" height="${Math.max(0.5, bottom - by)}" fill="${COLORS[kind]}"/>`,
      );
      out.push(
        `<text x="${bx + barW / 2}" y="${by - 3}" text-anchor="middle" font-size="9" fill="#212529">${short(value)}</text>`,
      );
    });
    out.push(
      `<text x="${left + gi * groupW + groupW / 2}" y="${bottom + 16}" text-anchor="middle" font-size="11">${esc(group)}</text>`,
    );
  });
  return out.join('\n');
}

export function buildSvg(
  meta: BenchMeta,
  echo: EchoResult[],
  fanout: FanoutResult[],
  memory: MemoryResult[],
  resources: ResourcesResult[],
): string {
  const concurrencies = [...new Set(echo.flatMap((e) => e.points.map((p) => p.concurrency)))];
  const echoValues = (pick: 'rps' | 'p99Ms') =>
    concurrencies.map((c) =>
      Object.fromEntries(echo.map((e) => [e.server, e.points.find((p) => p.concurrency === c)?.[pick]])),
    );
  const ns = [...new Set(fanout.map((f) => f.n))].sort((a, b) => a - b);
  const sizes = [...new Set(memory.flatMap((m) => m.points.map((p) => p.n)))].sort((a, b) => a - b);
  const panels: Panel[] = [
    {
      title: 'tools/call echo: req/s (higher is better)',
      groups: concurrencies.map((c) => `c=${c}`),
      values: echoValues('rps'),
    },
    {
      title: 'tools/call echo: p99 latency, ms (lower is better)',
      groups: concurrencies.map((c) => `c=${c}`),
      values: echoValues('p99Ms'),
    },
    {
      title: 'fan-out: ms until all N have it (log, lower is better)',
      groups: ns.map((n) => `N=${n}`),
      values: ns.map((n) => Object.fromEntries(fanout.filter((f) => f.n === n).map((f) => [f.server, f.fanoutMs]))),
      log: true,
    },
    {
      title: 'RSS per idle session, KB (lower is better)',
      groups: sizes.map((n) => `${n} sessions`),
      values: sizes.map((n) =>
        Object.fromEntries(
          memory.map((m) => [m.server, (m.points.find((p) => p.n === n)?.perSessionBytes ?? NaN) / 1024]),
        ),
      ),
    },
    {
      title: `resources/list walk of ${resources[0]?.count ?? '?'}, ms (lower is better)`,
      groups: ['full walk'],
      values: [Object.fromEntries(resources.map((r) => [r.server, r.walk?.msPerWalk]))],
    },
    {
      title: 'resources/read c=16: req/s (higher is better)',
      groups: ['read'],
      values: [Object.fromEntries(resources.map((r) => [r.server, r.read?.rps]))],
    },
  ];
  const W = 1500;
  const panelW = 500;
  const panelH = 360;
  const H = 90 + 2 * panelH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="20" y="26" font-size="17" font-weight="bold">MCP server benchmark ${esc(meta.date.slice(0, 16).replace('T', ' '))} UTC${meta.smoke ? ' (smoke)' : ''}</text>`,
    `<text x="20" y="46" font-size="12" fill="#495057">${esc(`${meta.machine.cpus} × ${meta.machine.model}, Node ${meta.node}, ${meta.durationS} s per load point`)}</text>`,
  ];
  // Legend, right-aligned on the title line; each entry as wide as its label (~7.5 px a character at 13 px).
  const entryWidth = (kind: ServerKind) => 20 + SERVER_LABELS[kind].length * 7.5 + 22;
  let lx = W - 20 - SERVER_KINDS.reduce((sum, kind) => sum + entryWidth(kind), 0);
  for (const kind of SERVER_KINDS) {
    parts.push(`<rect x="${lx}" y="16" width="14" height="14" fill="${COLORS[kind]}"/>`);
    parts.push(`<text x="${lx + 20}" y="28" font-size="13">${esc(SERVER_LABELS[kind])}</text>`);
    lx += entryWidth(kind);
  }
  panels.forEach((p, i) => parts.push(panel((i % 3) * panelW, 70 + Math.floor(i / 3) * panelH, panelW, panelH, p)));
  parts.push('</svg>');
  return parts.join('\n');
}

export function svgToPng(svg: string): Buffer {
  return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' }, background: '#ffffff' })
    .render()
    .asPng();
}
