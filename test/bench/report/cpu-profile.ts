/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by area (this library, Nest,
 * Express, other packages, Node internals, GC, idle), the top frames by self time, and the
 * library's frames by inclusive time, and the instrumented path (the library's telemetry and
 * the OpenTelemetry packages it calls, leaf frames). An optional window (µs, the profile's
 * monotonic clock) keeps only the samples taken in it.
 */
import { readFileSync } from 'node:fs';
import type { ProfileFrame, ProfileSummary } from '../types.js';

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: CpuNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const LIBRARY = '/libs/mcp/src/';

function shortUrl(url: string): string {
  if (!url) return '';
  const lib = url.indexOf(LIBRARY);
  if (lib !== -1) return `lib:${url.slice(lib + LIBRARY.length)}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) return url.slice(modules + '/node_modules/'.length);
  const bench = url.indexOf('/test/bench/');
  if (bench !== -1) return `bench:${url.slice(bench + '/test/bench/'.length)}`;
  return url.replace(/^file:\/\//, '');
}

export function areaOf(node: CpuNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return 'V8/native (program)';
  if (url.includes(LIBRARY)) return 'this library';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    if (pkg.startsWith('@nestjs/')) return pkg;
    return `npm: ${pkg}`;
  }
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/test/bench/')) return 'bench fixture';
  return url ? 'other JS' : 'V8/native (builtins)';
}

/** The library's telemetry code, or an OpenTelemetry package (the API, or an SDK when one runs). */
const isTelemetry = (node: CpuNode): boolean =>
  node.callFrame.url.includes(`${LIBRARY}telemetry/`) || node.callFrame.url.includes('/node_modules/@opentelemetry/');
/**
 * The frames that wrap a request's own work in its span's context (`McpOperation.run`, a context
 * manager's `with`): what runs under them is the request, not the instrumentation.
 */
const isWrapper = (node: CpuNode): boolean =>
  (node.callFrame.functionName === 'run' && node.callFrame.url.includes(`${LIBRARY}telemetry/`)) ||
  (node.callFrame.functionName === 'with' && node.callFrame.url.includes('/node_modules/@opentelemetry/'));

const frameName = (node: CpuNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = shortUrl(url);
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
};

const top = (map: Map<string, number>, total: number, count: number): ProfileFrame[] =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, us]) => ({ frame, ms: us / 1_000, pct: (100 * us) / Math.max(1, total) }));

export function summariseProfile(
  file: string,
  scenario: string,
  window?: { fromUs: number; toUs: number },
  count = 15,
): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, CpuNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const selfByFrame = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  const libraryInclusive = new Map<string, number>();
  const telemetryLeaves = new Map<string, number>();
  let telemetry = 0;
  let busy = 0;
  let total = 0;
  let samples = 0;
  let time = profile.startTime;
  // A sample stands for the time until the next one, but the sampler pauses while the process
  // waits in epoll, so a gap after a sample is not that frame's time: cap it at twice the
  // typical interval.
  const deltas = profile.timeDeltas.filter((d) => d > 0).sort((a, b) => a - b);
  const cap = 2 * (deltas[Math.floor(deltas.length / 2)] ?? 1_000);
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    const interval = Math.min(cap, profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0);
    if (window && (time < window.fromUs || time > window.toUs)) continue;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    samples++;
    total += interval;
    const area = areaOf(node);
    selfByArea.set(area, (selfByArea.get(area) ?? 0) + interval);
    const name = frameName(node);
    selfByFrame.set(name, (selfByFrame.get(name) ?? 0) + interval);
    if (area !== 'idle') busy += interval;
    // The instrumented path: the innermost telemetry frame above the sample is not a wrapper of
    // the request's work (or the sample is in the wrapper itself).
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!;
      if (!isTelemetry(frame)) continue;
      if (!isWrapper(frame) || frame === node) {
        telemetry += interval;
        telemetryLeaves.set(name, (telemetryLeaves.get(name) ?? 0) + interval);
      }
      break;
    }
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id);
      if (!frame || !frame.callFrame.url.includes(LIBRARY)) continue;
      const key = frameName(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      libraryInclusive.set(key, (libraryInclusive.get(key) ?? 0) + interval);
    }
  }
  return {
    scenario,
    file,
    totalMs: total / 1_000,
    samples,
    byArea: top(selfByArea, total, 20),
    topSelf: top(selfByFrame, total, count),
    topLibraryInclusive: top(libraryInclusive, total, count),
    ...(telemetry > 0
      ? {
          telemetry: {
            ms: telemetry / 1_000,
            pctOfBusy: (100 * telemetry) / Math.max(1, busy),
            topSelf: top(telemetryLeaves, total, count),
          },
        }
      : {}),
  };
}

export function formatProfile(summary: ProfileSummary): string {
  const lines = [
    `CPU profile: ${summary.scenario} (${summary.samples} samples, ${summary.totalMs.toFixed(0)} ms) ${summary.file}`,
  ];
  const block = (title: string, frames: ProfileFrame[]) => {
    lines.push(`  ${title}`);
    for (const f of frames)
      lines.push(`    ${f.pct.toFixed(1).padStart(5)}%  ${f.ms.toFixed(1).padStart(8)} ms  ${f.frame}`);
  };
  block('self time by area', summary.byArea);
  block('top frames by self time', summary.topSelf);
  block('library frames by inclusive time', summary.topLibraryInclusive);
  if (summary.telemetry) {
    block(
      `instrumented path: ${summary.telemetry.ms.toFixed(1)} ms, ${summary.telemetry.pctOfBusy.toFixed(2)}% of the busy (not idle) time; its frames by self time`,
      summary.telemetry.topSelf,
    );
  }
  return lines.join('\n');
}
