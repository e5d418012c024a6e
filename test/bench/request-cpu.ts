/**
 * The server's own CPU per `tools/call echo`: a fixed number of requests against one server kind,
 * its `process.cpuUsage()` read over IPC before and after, divided by the count. CPU time, unlike
 * requests per second, barely moves when other processes share the machine, so a change to the
 * request path can be compared before and after on a busy machine.
 *
 *   node test/bench/build.mjs && node test/bench/results/.build/test/bench/request-cpu.js \
 *     [--era legacy|modern] [--requests 20000] [--rounds 3] [--telemetry api|off] [--prof DIR]
 *     [--syscalls] [--concurrency 16] kind...
 *
 * `kind` is a bench server kind (`library`, `library-direct`, `nest-floor`, `node-floor`,
 * `library-fastify`, `library-direct-fastify`, `nest-floor-fastify`, `sdk-v2`, `sdk-v2-fastify`:
 * the official SDK v2's legacy requests go without a session, through its stateless fallback),
 * or `kind+NAME=value` to start it with more environment (`+era=modern` or `+era=legacy`: that server's requests are
 * of that era, whatever `--era` says). The servers are up at once and take turns: each round sends
 * `--requests` requests at concurrency 16 (`--concurrency`) to each server in turn, after a
 * warm-up of the same size; the best (lowest) round is reported with its user and system
 * parts, then the median of the rounds and every round.
 * `--prof DIR` writes a V8 CPU profile of the whole run. `--syscalls` runs one more round (not
 * one of the timed rounds) under `strace -f -c` (every thread of the server) and prints the
 * system calls and the bytes the server wrote per request: counts, which barely depend on the
 * load of the machine, except the event loop's waits (`epoll_pwait`), fewer under strace, which
 * slows the server so that more events share a loop turn.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchHttp, parseAnswer } from './client/http.js';
import { runLoad } from './client/load.js';
import { modernEchoRequest, modernHeaders } from './client/modern.js';
import { ServerProcess, type ServerKind } from './client/server-process.js';
import { formatProfile, summariseProfile } from './report/cpu-profile.js';
import { echoRequest, legacyEchoHeaders } from './phases/echo.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    era: { type: 'string', default: 'legacy' },
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    telemetry: { type: 'string', default: 'api' },
    prof: { type: 'string' },
    syscalls: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '16' },
  },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);

interface Cpu {
  user: number;
  system: number;
}

const cpuOf = async (server: ServerProcess): Promise<Cpu> => (await server.command<{ cpu: Cpu }>('cpu')).cpu;

/** One round's CPU per request, in µs, and the kernel's counts per request. */
interface RoundCpu extends Cpu {
  total: number;
  /** Context switches of every thread: waits (voluntary) and preemptions (involuntary). */
  voluntary: number;
  involuntary: number;
  /** Minor page faults of the process. */
  faults: number;
}

interface KernelCounts {
  voluntary: number;
  involuntary: number;
  faults: number;
}

/** Context switches summed over the threads of `pid` and its minor faults (Linux /proc), or zeros. */
function kernelCountsOf(pid: number | undefined): KernelCounts {
  const counts = { voluntary: 0, involuntary: 0, faults: 0 };
  if (pid === undefined) return counts;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      counts.voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      counts.involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
    // The fields after the command's closing parenthesis: state is field 3, minflt field 10.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    counts.faults = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
  } catch {
    // Not Linux, or the process is gone: the counts stay zero.
  }
  return counts;
}

interface Measured {
  rounds: RoundCpu[];
  /** The counted round's system calls, per request. */
  syscalls?: { name: string; perRequest: number }[];
  /** Bytes the server wrote to its sockets per request (`/proc/<pid>/io` wchar over the round). */
  writtenPerRequest?: number;
}

/** Characters the process wrote (every write and send system call), from /proc/<pid>/io. */
const wcharOf = (pid: number): number => Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);

/**
 * Attaches `strace -f -c` to every thread of `pid`, counting into `out`; resolves, once attached,
 * to the function that detaches it.
 */
async function countSyscalls(pid: number, out: string): Promise<() => Promise<void>> {
  const child = spawn('strace', ['-f', '-c', '-o', out, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await Promise.race([
    new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        err += String(chunk);
        if (/Process \d+ attached/.test(err)) resolve();
      }),
    ),
    exited.then((code) => Promise.reject(new Error(`strace exited (${code}): ${err}`))),
    new Promise<void>((resolve) => child.once('error', resolve)).then(() => Promise.reject(new Error('no strace'))),
  ]);
  // strace announces the first thread, then attaches the others.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return async () => {
    child.kill('SIGINT');
    await exited;
  };
}

/** `strace -c`'s summary table: calls per system call. */
function parseCounts(text: string): { name: string; calls: number }[] {
  const rows: { name: string; calls: number }[] = [];
  for (const line of text.split('\n')) {
    const cells = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors], syscall
    if (cells.length < 5 || !/^\d+(\.\d+)?$/.test(cells[0]) || cells[cells.length - 1] === 'total') continue;
    rows.push({ name: cells[cells.length - 1], calls: Number(cells[3]) });
  }
  return rows.sort((a, b) => b.calls - a.calls);
}

/** A server under measure: `kind`, or `kind+NAME=value+...` for one with extra environment. */
interface Subject {
  label: string;
  modern: boolean;
  server: ServerProcess;
  load: () => Promise<void>;
  close: () => Promise<void>;
  measured: Measured;
}

async function open(label: string, profDir?: string): Promise<Subject> {
  const [kind, ...settings] = label.split('+') as [ServerKind, ...string[]];
  const { era = values.era, ...extra } = Object.fromEntries(
    settings.map((setting) => setting.split(/=(.*)/s, 2) as [string, string]),
  );
  const modern = era === 'modern';
  const server = await ServerProcess.start(kind, {
    env: { BENCH_TELEMETRY: values.telemetry, ...extra },
    ...(profDir ? { cpuProfDir: profDir } : {}),
  });
  const http = new BenchHttp(server.endpoint, 4);
  const close = async () => {
    http.close();
    await server.stop(30_000);
  };
  try {
    const headers = modern ? modernHeaders('tools/call', 'echo') : await legacyEchoHeaders(http, kind);
    let seq = 0;
    const load = async () => {
      const result = await runLoad({
        url: server.endpoint,
        headers,
        concurrency,
        durationS: 600,
        amount: requests,
        build: () => (modern ? modernEchoRequest(++seq) : echoRequest(++seq)),
        parse: parseAnswer,
      });
      if (result.errors > 0) throw new Error(`${label}: ${result.errors} wrong answers: ${result.firstError}`);
    };
    return { label, modern, server, load, close, measured: { rounds: [] } };
  } catch (error) {
    await close();
    throw error;
  }
}

async function round(subject: Subject): Promise<void> {
  const before = await cpuOf(subject.server);
  const kernelBefore = kernelCountsOf(subject.server.pid);
  await subject.load();
  const kernelAfter = kernelCountsOf(subject.server.pid);
  const after = await cpuOf(subject.server);
  const user = (after.user - before.user) / requests;
  const system = (after.system - before.system) / requests;
  subject.measured.rounds.push({
    user,
    system,
    total: user + system,
    voluntary: (kernelAfter.voluntary - kernelBefore.voluntary) / requests,
    involuntary: (kernelAfter.involuntary - kernelBefore.involuntary) / requests,
    faults: (kernelAfter.faults - kernelBefore.faults) / requests,
  });
}

async function countRound(subject: Subject): Promise<void> {
  const pid = subject.server.pid;
  if (pid === undefined) return;
  const out = join(mkdtempSync(join(tmpdir(), 'request-syscalls-')), 'counts.txt');
  try {
    const stop = await countSyscalls(pid, out);
    const written = wcharOf(pid);
    await subject.load();
    const wrote = wcharOf(pid) - written;
    await stop();
    subject.measured.syscalls = parseCounts(readFileSync(out, 'utf8')).map(({ name, calls }) => ({
      name,
      perRequest: calls / requests,
    }));
    subject.measured.writtenPerRequest = wrote / requests;
  } finally {
    rmSync(join(out, '..'), { recursive: true, force: true });
  }
}

// Every server is up at once and they take turns, round by round (the order rotating), so a
// burst of load from elsewhere does not land on one server's rounds only.
const subjects: Subject[] = [];
const profDirs = new Map<string, string>();
try {
  for (const label of positionals) {
    const profDir = values.prof ? mkdtempSync(join(values.prof, `${label.split('+')[0]}-`)) : undefined;
    if (profDir) profDirs.set(label, profDir);
    subjects.push(await open(label, profDir));
  }
  for (const subject of subjects) await subject.load();
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < subjects.length; i++) await round(subjects[(i + r) % subjects.length]);
  }
  if (values.syscalls) for (const subject of subjects) await countRound(subject);
} finally {
  for (const subject of subjects) await subject.close();
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

for (const { label, modern, measured } of subjects) {
  const best = measured.rounds.reduce((a, b) => (b.total < a.total ? b : a));
  console.log(
    `${label} (${modern ? 'modern' : 'legacy'}, telemetry ${values.telemetry}): ${best.total.toFixed(1)} µs CPU per request, user ${best.user.toFixed(1)} + system ${best.system.toFixed(1)}; median ${median(measured.rounds.map((r) => r.total)).toFixed(1)} = ${median(measured.rounds.map((r) => r.user)).toFixed(1)} + ${median(measured.rounds.map((r) => r.system)).toFixed(1)} (rounds: ${measured.rounds.map((r) => `${r.total.toFixed(1)} = ${r.user.toFixed(1)} + ${r.system.toFixed(1)}`).join(', ')})`,
  );
  const perRound = (pick: (r: RoundCpu) => number) => median(measured.rounds.map(pick)).toFixed(3);
  console.log(
    `  per request (median of rounds): context switches ${perRound((r) => r.voluntary)} voluntary + ${perRound((r) => r.involuntary)} involuntary, minor page faults ${perRound((r) => r.faults)}`,
  );
  if (measured.syscalls) {
    const shown = measured.syscalls.filter((row) => row.perRequest >= 0.005 && !row.name.startsWith('<'));
    console.log(
      `  per request, under strace (${shown.map((row) => `${row.name} ${row.perRequest.toFixed(2)}`).join(', ')}); bytes written per request ${measured.writtenPerRequest?.toFixed(0)}`,
    );
  }
  const profDir = profDirs.get(label);
  const file = profDir && readdirSync(profDir).find((name) => name.endsWith('.cpuprofile'));
  if (file) console.log(formatProfile(summariseProfile(join(profDir, file), label, undefined, 40)));
}
