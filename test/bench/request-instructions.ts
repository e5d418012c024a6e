/**
 * Instructions per `tools/call echo`, counted by Valgrind's callgrind: the server runs under
 * `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes`; `--warmup` requests
 * (20,000) warm it up, `callgrind_control -i on` starts counting, `--requests` (3,000) more are
 * sent one after the other on one keep-alive connection, `callgrind_control -i off` and `-d`
 * stop and dump. The figure is the main thread's `totals` divided by `--requests` (V8's compiler
 * and GC helper threads are reported apart: they vary more). Unlike CPU time, the count barely
 * moves when other processes share the machine, so runs of one build agree within about 1%.
 *
 *   node test/bench/build.mjs && node test/bench/results/.build/test/bench/request-instructions.js \
 *     [--era legacy|modern] [--warmup 20000] [--requests 3000] [--runs 1] [--telemetry api|off] \
 *     [--memory-reducer] [--out DIR] kind...
 *
 * The server runs with V8's `--no-memory-reducer` unless `--memory-reducer` is given: the memory
 * reducer starts a full garbage collection from a timer when the allocation rate per second of
 * wall time drops, and under Valgrind on a busy machine the server is slow enough for that to
 * land in the counted window or not (one such collection is some 11k instructions per request
 * over 3,000 requests), so the count would depend on how busy the machine is. The collections
 * that allocation itself triggers stay in the count.
 *
 * `kind` is a bench server kind (`library-direct`, `library`, `node-floor`, `nest-floor`,
 * `library-fastify`, `library-direct-fastify`, `nest-floor-fastify`, `sdk-v2`, `sdk-v2-fastify`).
 * The floors know no era: they are sent the legacy request (one `initialize`d session). The
 * official SDK v2's kinds serve both eras; their legacy request goes without a session (the
 * SDK's stateless fallback). `--out` keeps the callgrind files (for `callgrind_annotate`); by
 * default they go to a temporary directory that is removed. Needs `valgrind` on the PATH.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchHttp, parseAnswer } from './client/http.js';
import { runLoad } from './client/load.js';
import { modernEchoRequest, modernHeaders } from './client/modern.js';
import { ServerProcess, type ServerKind } from './client/server-process.js';
import { echoRequest, legacyEchoHeaders } from './phases/echo.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    era: { type: 'string', default: 'legacy' },
    warmup: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '3000' },
    runs: { type: 'string', default: '1' },
    telemetry: { type: 'string', default: 'api' },
    out: { type: 'string' },
    'memory-reducer': { type: 'boolean', default: false },
  },
});
const warmup = Number(values.warmup);
const requests = Number(values.requests);
const runs = Number(values.runs);

/** The library's and the official SDK v2's kinds serve both eras; the floors answer the legacy request only. */
const servesEras = (kind: ServerKind): boolean => kind.startsWith('library') || kind.startsWith('sdk-v2');

interface Count {
  /** Main-thread instructions per request. */
  main: number;
  /** Every other thread's (V8's compiler and GC helpers), per request. */
  others: number;
}

/** The `totals:` (or `summary:`) line of one callgrind file. */
function totalsOf(file: string): number {
  const text = readFileSync(file, 'utf8');
  const line = /^totals:\s+(\d+)/m.exec(text) ?? /^summary:\s+(\d+)/m.exec(text);
  if (!line) throw new Error(`no totals in ${file}`);
  return Number(line[1]);
}

async function count(kind: ServerKind, modern: boolean, dir: string): Promise<Count> {
  const server = await ServerProcess.start(kind, {
    env: { BENCH_TELEMETRY: values.telemetry },
    startTimeoutMs: 600_000,
    nodeArgs: values['memory-reducer'] ? [] : ['--no-memory-reducer'],
    wrap: [
      'valgrind',
      '--tool=callgrind',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`,
    ],
  });
  const pid = String(server.pid);
  const http = new BenchHttp(server.endpoint, 1, 600_000);
  try {
    const headers = modern ? modernHeaders('tools/call', 'echo') : await legacyEchoHeaders(http, kind);
    let seq = 0;
    const load = async (amount: number) => {
      const result = await runLoad({
        url: server.endpoint,
        headers,
        concurrency: 1,
        durationS: 3_600,
        amount,
        build: () => (modern ? modernEchoRequest(++seq) : echoRequest(++seq)),
        parse: parseAnswer,
      });
      if (result.ok !== amount || result.errors > 0) {
        throw new Error(`${kind}: ${result.ok} of ${amount} right, ${result.errors} wrong: ${result.firstError}`);
      }
    };
    await load(warmup);
    execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
    await load(requests);
    execFileSync('callgrind_control', ['-i', 'off', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
  } finally {
    http.close();
    await server.stop(120_000);
  }
  // The dump's files: `callgrind.out.<pid>.1-<thread>`, thread 01 being the main thread.
  const parts = readdirSync(dir).filter((name) => name.startsWith(`callgrind.out.${pid}.1-`));
  const main = parts.find((name) => name.endsWith('-01'));
  if (!main) throw new Error(`${kind}: no main-thread dump among ${parts.join(', ') || 'no files'} in ${dir}`);
  const others = parts.filter((name) => name !== main).reduce((sum, name) => sum + totalsOf(join(dir, name)), 0);
  return { main: totalsOf(join(dir, main)) / requests, others: others / requests };
}

const dir = values.out ?? mkdtempSync(join(tmpdir(), 'request-instructions-'));
mkdirSync(dir, { recursive: true });
try {
  for (const kind of positionals as ServerKind[]) {
    const modern = values.era === 'modern' && servesEras(kind);
    const counted: Count[] = [];
    for (let run = 0; run < runs; run++) counted.push(await count(kind, modern, dir));
    const k = (n: number) => `${(n / 1_000).toFixed(1)}k`;
    const sorted = counted.map((c) => c.main).sort((a, b) => a - b);
    console.log(
      `${kind} (${modern ? 'modern' : 'legacy'}, telemetry ${values.telemetry}` +
        `${values['memory-reducer'] ? ', memory reducer on' : ''}): ` +
        `${k(sorted[Math.floor((sorted.length - 1) / 2)])} main-thread instructions per request ` +
        `(runs: ${counted.map((c) => k(c.main)).join(', ')}; other threads: ${counted.map((c) => k(c.others)).join(', ')})`,
    );
  }
} finally {
  if (values.out === undefined) rmSync(dir, { recursive: true, force: true });
}
