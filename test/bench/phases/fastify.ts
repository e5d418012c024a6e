/**
 * The library on Nest's Fastify platform (`@nestjs/platform-fastify`), beside the same servers
 * on Express:
 *
 * - **tools/call at concurrency 16** on one legacy session each, five servers up at once taking
 *   turns for `BENCH_FASTIFY_ROUNDS` rounds of `BENCH_ERA_DURATION` seconds (the best round of
 *   each compared, as the Redis phase does: identical runs on a shared 2-core machine differ by
 *   up to a third): the bare Nest-on-Fastify floor, the controller mount on Fastify and on
 *   Express, the direct mount on Fastify and on Express.
 *   Each round also takes the server's CPU (user + system) per answered request: on a shared
 *   machine the rates of identical rounds differ by a third or more, while the CPU a request
 *   costs its server moves far less, so the medians of the rounds say where the time goes.
 * - **Fan-out to `BENCH_FASTIFY_FANOUT_N` (1,000) subscribers**: the fan-out phase's run
 *   (runFanout: same client, rounds, proof barrier) on each mount on Fastify and on Express.
 *
 * The Express servers are the main table's own kinds, started unchanged.
 */
import type { LoadResult } from '../client/load.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { FastifyResult } from '../types.js';
import { bestRound, echoSession, type EchoSession } from './echo.js';
import { runFanout } from './fanout.js';
import { cpuUsOf } from './redis.js';
import { median } from './telemetry.js';

/** The servers of the echo rounds, in turn order. */
export const FASTIFY_ECHO_KINDS: readonly ServerKind[] = [
  'nest-floor-fastify',
  'library-fastify',
  'library',
  'library-direct-fastify',
  'library-direct',
];
/** The servers of the fan-out runs: each mount on Fastify, then on Express. */
export const FASTIFY_FANOUT_KINDS: readonly ServerKind[] = [
  'library-fastify',
  'library',
  'library-direct-fastify',
  'library-direct',
];

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
  for (const kind of FASTIFY_FANOUT_KINDS) {
    const run = await runFanout(config, kind, config.fastifyFanoutN, log);
    result.fanout.push(run);
    result.errors += run.errors;
  }
  return result;
}
