/**
 * The library on Nest's Fastify platform (`@nestjs/platform-fastify`), beside the same servers
 * on Express:
 *
 * - **tools/call at concurrency 16** on one legacy session each, six servers up at once taking
 *   turns for `BENCH_FASTIFY_ROUNDS` rounds of `BENCH_ERA_DURATION` seconds (the best round of
 *   each compared, as the Redis phase does: identical runs on a shared 2-core machine differ by
 *   up to a third): the bare Nest-on-Fastify floor, the controller mount on Fastify and on
 *   Express, the direct mount on Fastify and on Express, and the official SDK v2 on Fastify
 *   (below).
 *   Each round also takes the server's CPU (user + system) per answered request: on a shared
 *   machine the rates of identical rounds differ by a third or more, while the CPU a request
 *   costs its server moves far less, so the medians of the rounds say where the time goes.
 * - **Fan-out to `BENCH_FASTIFY_FANOUT_N` (1,000) subscribers**: the fan-out phase's run
 *   (FanoutRun: same client, proof barrier) per mount on Fastify and on Express, both servers up
 *   at once and taking turns for `BENCH_FASTIFY_FANOUT_ROUNDS` (21) rounds (round 1 Fastify then Express,
 *   round 2 Express then Fastify, …), the median round of each compared as the fan-out phase
 *   does. Run one after the other, drift on the shared machine and who went first decided the
 *   ratio (identical code measured anywhere from 0.8× to 2.5×); taking turns, both see it alike.
 *
 * - **The official SDK v2 on Fastify** (`sdk-v2-fastify`: `createMcpFastifyApp` + `toNodeHandler`
 *   of `createMcpHandler`, as the SDK's Fastify guide mounts it), a peer row, no target: a sixth
 *   server of the echo rounds, with the same `tools/call` but no session (its 2025-era traffic goes
 *   through the SDK's stateless fallback). It cannot run the fan-out above: that one needs
 *   sessions subscribed with `resources/subscribe` and their GET streams, which the stateless
 *   fallback does not have. So the phase also runs the listen phase's fan-out (runListenFanout:
 *   `BENCH_FASTIFY_FANOUT_N` modern `subscriptions/listen` streams, one notification at a time from
 *   the server's own call) on the three MCP servers on Fastify, one after the other: each mount
 *   of the library and the SDK.
 *
 * The Express servers are the main table's own kinds, started unchanged.
 */
import type { LoadResult } from '../client/load.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { FanoutResult, FastifyResult } from '../types.js';
import { bestRound, echoSession, type EchoSession } from './echo.js';
import { FanoutRun } from './fanout.js';
import { runListenFanout } from './listen.js';
import { cpuUsOf } from './redis.js';
import { median } from './telemetry.js';

/** The servers of the echo rounds, in turn order (the SDK on Fastify last: a peer row). */
export const FASTIFY_ECHO_KINDS: readonly ServerKind[] = [
  'nest-floor-fastify',
  'library-fastify',
  'library',
  'library-direct-fastify',
  'library-direct',
  'sdk-v2-fastify',
];
/** The fan-out pairs, each taking turns: a mount on Fastify and on Express. */
const FANOUT_PAIRS: ReadonlyArray<readonly [ServerKind, ServerKind]> = [
  ['library-fastify', 'library'],
  ['library-direct-fastify', 'library-direct'],
];
/** The servers of the fan-out runs, in the results' order: each mount on Fastify, then on Express. */
export const FASTIFY_FANOUT_KINDS: readonly ServerKind[] = FANOUT_PAIRS.flat();
/** The servers of the `subscriptions/listen` fan-out, in run order: the MCP servers on Fastify. */
export const FASTIFY_LISTEN_KINDS: readonly ServerKind[] = [
  'library-fastify',
  'library-direct-fastify',
  'sdk-v2-fastify',
];

/**
 * One pair's fan-out runs, both set up before the first round and taking turns: odd rounds
 * Fastify first, even rounds Express first, so neither always runs on the warmer or the quieter
 * machine. Results in FASTIFY_FANOUT_KINDS order (Fastify, Express).
 */
async function fanoutPair(
  config: BenchConfig,
  pair: readonly [ServerKind, ServerKind],
  log: (line: string) => void,
): Promise<FanoutResult[]> {
  const runs: FanoutRun[] = [];
  try {
    // Both hold their streams at once: each gets half of the client's descriptors.
    for (const kind of pair) runs.push(await FanoutRun.open(config, kind, config.fastifyFanoutN, log, pair.length));
    for (let round = 1; round <= config.fastifyFanoutRounds; round++) {
      const order = round % 2 === 1 ? runs : [...runs].reverse();
      for (const run of order) await run.round(round);
    }
  } finally {
    // finish() closes each run on every path (a run that failed only closes).
    for (const run of runs) await run.finish();
  }
  return runs.map((run) => run.result);
}

async function echoRounds(
  config: BenchConfig,
  log: (line: string) => void,
): Promise<NonNullable<FastifyResult['echo']>> {
  const sessions: Array<{ kind: ServerKind; server: ServerProcess; echo: EchoSession }> = [];
  try {
    for (const kind of FASTIFY_ECHO_KINDS) {
      const server = await ServerProcess.start(kind);
      const echo = await echoSession(config, server);
      sessions.push({ kind, server, echo });
      await echo.load(16, config.warmupS);
    }
    const rounds: Array<Partial<Record<ServerKind, LoadResult>>> = [];
    const cpuRounds: Array<Partial<Record<ServerKind, number>>> = [];
    for (let round = 1; round <= config.fastifyRounds; round++) {
      const points: Partial<Record<ServerKind, LoadResult>> = {};
      const cpu: Partial<Record<ServerKind, number>> = {};
      for (const { kind, server, echo } of sessions) {
        const before = await cpuUsOf(server);
        const point = await echo.load(16, config.eraDurationS);
        cpu[kind] = ((await cpuUsOf(server)) - before) / Math.max(1, point.ok + point.errors);
        points[kind] = point;
      }
      rounds.push(points);
      cpuRounds.push(cpu);
      log(
        `  echo c=16, round ${round}: ${sessions.map(({ kind }) => `${kind} ${points[kind]!.rps.toFixed(0)} req/s (${cpu[kind]!.toFixed(1)} µs CPU/req)${points[kind]!.errors ? ` (${points[kind]!.errors} errors: ${points[kind]!.firstError})` : ''}`).join(', ')}`,
      );
    }
    const best: Partial<Record<ServerKind, LoadResult>> = {};
    const cpuMedian: Partial<Record<ServerKind, number>> = {};
    for (const { kind } of sessions) {
      best[kind] = bestRound(rounds.map((points) => points[kind]!));
      cpuMedian[kind] = median(cpuRounds.map((cpu) => cpu[kind]!));
    }
    return {
      best,
      rounds: rounds.map((points) =>
        Object.fromEntries(Object.entries(points).map(([kind, point]) => [kind, point.rps])),
      ),
      cpuRounds,
      cpuMedian,
      errors: rounds.reduce((sum, points) => sum + Object.values(points).reduce((s, point) => s + point.errors, 0), 0),
    };
  } finally {
    await Promise.all(sessions.map(({ echo }) => echo.close()));
  }
}

export async function runFastify(config: BenchConfig, log: (line: string) => void): Promise<FastifyResult> {
  const result: FastifyResult = { fanout: [], errors: 0 };
  try {
    const echo = await echoRounds(config, log);
    result.echo = echo;
    result.errors += echo.errors;
    log(
      `  echo c=16, best of ${config.fastifyRounds} rounds: ${FASTIFY_ECHO_KINDS.map((kind) => `${kind} ${echo.best[kind]?.rps.toFixed(0)} req/s`).join(', ')}`,
    );
  } catch (error) {
    result.error = (error as Error).message;
    result.errors++;
    log(`  fastify echo: FAILED ${result.error}`);
  }
  for (const pair of FANOUT_PAIRS) {
    for (const run of await fanoutPair(config, pair, log)) {
      result.fanout.push(run);
      result.errors += run.errors;
    }
  }
  result.listen = [];
  for (const kind of FASTIFY_LISTEN_KINDS) {
    const run = await runListenFanout(config, kind, config.fastifyFanoutN, log);
    result.listen.push(run);
    result.errors += run.errors;
  }
  return result;
}
