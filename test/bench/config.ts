/**
 * The bench's settings, from the environment. Every loop of the bench is bounded by these
 * counts and by the time limits below.
 *
 * | Variable | Default (smoke) | Meaning |
 * |---|---|---|
 * | BENCH_SMOKE | unset | `1`: a tiny run (32 requests per load point, N=10) for the e2e test |
 * | BENCH_DURATION | 5 (0.1) | seconds per load point; in smoke mode only the resource list walks use it |
 * | BENCH_WARMUP | 2 (0.1) | seconds of warm-up load per server before its points |
 * | BENCH_REQUESTS | unset (32) | requests per load point and warm-up instead of a duration |
 * | BENCH_CONCURRENCY | 1,16,64 (1,16) | load points (connections on one session) |
 * | BENCH_FANOUT_N | 100,1000,10000 (10) | subscribed sessions per fan-out run |
 * | BENCH_FANOUT_FLOOR_MAX | 1000 (10) | largest N run on the floors |
 * | BENCH_FANOUT_ROUNDS | 7 (2) | `bump`s per fan-out run, one at a time; the median is reported (the first is cold code) |
 * | BENCH_MEMORY_N | 1000,10000 (10) | idle sessions per memory point |
 * | BENCH_RESOURCES_N | 10000 (100) | runtime resources for the resources phase |
 * | BENCH_SERVERS | all | comma list of library, sdk, nest-floor, node-floor, library-direct, tmcp |
 * | BENCH_PHASES | all | comma list of echo, fanout, memory, resources, era, listen, redis, tasks, telemetry, fastify, redis-cluster |
 * | BENCH_PROFILE | auto (never) | `auto`: CPU-profile the library (the mount whose target failed) when one of its targets fails; `always`; `never` |
 * | BENCH_RESULTS_DIR | test/bench/results | where JSON, SVG and PNG go |
 * | BENCH_FD_RESERVE | 600 | descriptors kept free per process when sizing fan-out |
 * | BENCH_ERA_DURATION | 2 (0.1) | seconds per load point of the era phase and the Redis tools/call rows |
 * | BENCH_ERA_SERVERS | all | comma list of library, library-direct, sdk-v2, tmcp, node-floor for the era phase |
 * | BENCH_LISTEN_N | 1000,10000 (10) | `subscriptions/listen` streams per listen fan-out run |
 * | BENCH_REDIS_FANOUT_N | 1000,10000 (10) | subscribed sessions per Redis fan-out run |
 * | BENCH_REDIS_INSTANCES | 3 | library instances sharing Redis in the Redis fan-out |
 * | BENCH_REDIS_MEMORY_N | 1000 (10) | idle sessions whose Redis memory is measured |
 * | BENCH_REDIS_ECHO_ROUNDS | 5 (1) | interleaved rounds of the tools/call rows on the in-memory and Redis backends; the best of each counts |
 * | BENCH_TASKS_N | 1000 (10) | tasks created and polled across the Redis instances in the tasks phase |
 * | BENCH_TASKS_POLL_S | 5 (1) | seconds every task is polled at its interval |
 * | BENCH_TELEMETRY_ROUNDS | 18 (2) | interleaved rounds of the telemetry phase (off, api and sdk servers taking turns) |
 * | BENCH_TELEMETRY_DURATION | 1 (0.1) | seconds per mode and round of the telemetry phase |
 * | BENCH_FASTIFY_ROUNDS | 5 (1) | interleaved tools/call rounds of the Fastify phase (each server BENCH_ERA_DURATION s per round) |
 * | BENCH_FASTIFY_FANOUT_N | 1000 (10) | subscribers of the Fastify phase's fan-out runs |
 * | BENCH_FASTIFY_FANOUT_ROUNDS | 21 (2) | `bump`s per server in the Fastify phase's fan-out pairs, taking turns (single bumps of one server spread 2× on a shared machine: 7 left the median 15% apart between identical code) |
 * | BENCH_REDIS_CLUSTER_N | 10000 (10) | subscribers over the instances in the Redis Cluster phase's fan-out (one node and cluster) |
 *
 * `--quick` on the command line (`npm run bench -- --quick`): the new rows only (phases era,
 * listen, redis, tasks, telemetry, fastify, redis-cluster), 2 s per load point, 5 rounds;
 * environment variables still win.
 *
 * `--phases=echo,fanout` and `--servers=library,library-direct,tmcp` on the command line pick
 * phases and servers as BENCH_PHASES and BENCH_SERVERS do (and win over them), so one can rerun
 * only what one is working on: `npm run bench -- --phases=fanout --servers=library,tmcp`.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { SERVER_KINDS, type ServerKind } from './client/server-process.js';

export type Phase =
  | 'echo'
  | 'fanout'
  | 'memory'
  | 'resources'
  | 'era'
  | 'listen'
  | 'redis'
  | 'tasks'
  | 'telemetry'
  | 'fastify'
  | 'redis-cluster';
export const PHASES: readonly Phase[] = [
  'echo',
  'fanout',
  'memory',
  'resources',
  'era',
  'listen',
  'redis',
  'tasks',
  'telemetry',
  'fastify',
  'redis-cluster',
];
/** The servers of the era phase, in run order. */
export const ERA_KINDS: readonly ServerKind[] = ['library', 'library-direct', 'sdk-v2', 'tmcp', 'node-floor'];
/** What `--quick` runs. */
const QUICK_PHASES = 'era,listen,redis,tasks,telemetry,fastify,redis-cluster';

export interface BenchConfig {
  smoke: boolean;
  durationS: number;
  warmupS: number;
  concurrency: number[];
  fanoutN: number[];
  fanoutFloorMax: number;
  fanoutRounds: number;
  memoryN: number[];
  resourcesN: number;
  servers: ServerKind[];
  phases: Phase[];
  profile: 'auto' | 'always' | 'never';
  resultsDir: string;
  /** `ulimit -n` of this process (the children inherit it). */
  fdLimit: number;
  fdReserve: number;
  /** Requests in flight while setting up sessions. */
  setupConcurrency: number;
  /** Calls per batch when timing a notification nobody subscribed to (5 batches). */
  notifyIterations: number;
  /** Requests per load point (and warm-up) instead of `durationS`: a load whose size is known. */
  requestsPerPoint?: number;
  quick: boolean;
  eraDurationS: number;
  eraServers: ServerKind[];
  listenN: number[];
  redisFanoutN: number[];
  redisInstances: number;
  redisMemoryN: number;
  redisEchoRounds: number;
  tasksN: number;
  tasksPollS: number;
  telemetryRounds: number;
  telemetryDurationS: number;
  fastifyRounds: number;
  fastifyFanoutN: number;
  fastifyFanoutRounds: number;
  redisClusterFanoutN: number;
}

const list = (value: string | undefined, fallback: number[]): number[] => {
  if (!value?.trim()) return fallback;
  const numbers = value.split(',').map((s) => Math.floor(Number(s.trim())));
  if (numbers.some((n) => !Number.isFinite(n) || n <= 0)) throw new Error(`not a list of positive numbers: '${value}'`);
  return numbers;
};

const number = (value: string | undefined, fallback: number): number => {
  if (!value?.trim()) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`not a positive number: '${value}'`);
  return n;
};

function names<T extends string>(value: string | undefined, all: readonly T[], what: string): T[] {
  if (!value?.trim()) return [...all];
  const picked = value.split(',').map((s) => s.trim()) as T[];
  for (const name of picked)
    if (!all.includes(name)) throw new Error(`unknown ${what} '${name}' (use ${all.join(', ')})`);
  return all.filter((name) => picked.includes(name));
}

export function fileDescriptorLimit(): number {
  const out = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
  const n = Number(out);
  return Number.isFinite(n) && n > 0 ? n : 1024;
}

/** The value of `--name=value` or `--name value` on the command line, if given. */
function flag(argv: string[], name: string): string | undefined {
  const at = argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at === -1) return undefined;
  const arg = argv[at];
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a comma list`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv): BenchConfig {
  const smoke = env.BENCH_SMOKE === '1' || env.BENCH_SMOKE === 'true';
  const quick = argv.includes('--quick');
  const profile = (env.BENCH_PROFILE?.trim() || (smoke ? 'never' : 'auto')) as BenchConfig['profile'];
  if (!['auto', 'always', 'never'].includes(profile))
    throw new Error(`BENCH_PROFILE is '${profile}': auto, always or never`);
  return {
    smoke,
    durationS: number(env.BENCH_DURATION, smoke ? 0.1 : 5),
    warmupS: number(env.BENCH_WARMUP, smoke ? 0.1 : quick ? 1 : 2),
    concurrency: list(env.BENCH_CONCURRENCY, smoke ? [1, 16] : [1, 16, 64]),
    fanoutN: list(env.BENCH_FANOUT_N, smoke ? [10] : [100, 1_000, 10_000]),
    fanoutFloorMax: number(env.BENCH_FANOUT_FLOOR_MAX, smoke ? 10 : 1_000),
    fanoutRounds: Math.min(50, Math.floor(number(env.BENCH_FANOUT_ROUNDS, smoke ? 2 : quick ? 5 : 7))),
    memoryN: list(env.BENCH_MEMORY_N, smoke ? [10] : [1_000, 10_000]),
    resourcesN: Math.floor(number(env.BENCH_RESOURCES_N, smoke ? 100 : 10_000)),
    servers: names(flag(argv, 'servers') ?? env.BENCH_SERVERS, SERVER_KINDS, 'server'),
    phases: names(flag(argv, 'phases') ?? env.BENCH_PHASES ?? (quick ? QUICK_PHASES : undefined), PHASES, 'phase'),
    profile,
    resultsDir: resolve(env.BENCH_RESULTS_DIR?.trim() || 'test/bench/results'),
    fdLimit: fileDescriptorLimit(),
    fdReserve: Math.floor(number(env.BENCH_FD_RESERVE, 600)),
    setupConcurrency: 64,
    notifyIterations: smoke ? 200 : 20_000,
    requestsPerPoint: env.BENCH_REQUESTS?.trim() ? Math.floor(number(env.BENCH_REQUESTS, 1)) : smoke ? 32 : undefined,
    quick,
    eraDurationS: number(env.BENCH_ERA_DURATION, smoke ? 0.1 : 2),
    eraServers: names(env.BENCH_ERA_SERVERS, ERA_KINDS, 'era server'),
    listenN: list(env.BENCH_LISTEN_N, smoke ? [10] : [1_000, 10_000]),
    redisFanoutN: list(env.BENCH_REDIS_FANOUT_N, smoke ? [10] : [1_000, 10_000]),
    redisInstances: Math.floor(number(env.BENCH_REDIS_INSTANCES, 3)),
    redisMemoryN: Math.floor(number(env.BENCH_REDIS_MEMORY_N, smoke ? 10 : 1_000)),
    redisEchoRounds: Math.min(20, Math.max(1, Math.floor(number(env.BENCH_REDIS_ECHO_ROUNDS, smoke ? 1 : 5)))),
    // Bounded for a 2-core machine: every task is a running handler on one of the instances.
    tasksN: Math.min(10_000, Math.floor(number(env.BENCH_TASKS_N, smoke ? 10 : 1_000))),
    tasksPollS: Math.min(60, number(env.BENCH_TASKS_POLL_S, smoke ? 1 : 5)),
    telemetryRounds: Math.min(30, Math.max(1, Math.floor(number(env.BENCH_TELEMETRY_ROUNDS, smoke ? 2 : 18)))),
    telemetryDurationS: number(env.BENCH_TELEMETRY_DURATION, smoke ? 0.1 : 1),
    fastifyRounds: Math.min(20, Math.max(1, Math.floor(number(env.BENCH_FASTIFY_ROUNDS, smoke ? 1 : 5)))),
    fastifyFanoutN: Math.floor(number(env.BENCH_FASTIFY_FANOUT_N, smoke ? 10 : 1_000)),
    fastifyFanoutRounds: Math.min(
      50,
      Math.max(1, Math.floor(number(env.BENCH_FASTIFY_FANOUT_ROUNDS, smoke ? 2 : quick ? 11 : 21))),
    ),
    redisClusterFanoutN: Math.floor(number(env.BENCH_REDIS_CLUSTER_N, smoke ? 10 : 10_000)),
  };
}
