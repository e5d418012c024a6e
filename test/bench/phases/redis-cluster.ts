/**
 * The Redis backend on one node and on a Redis Cluster (three masters, a replica each), in one
 * go: the bench starts its own `redis-server` and its own cluster (six more `redis-server`
 * processes), all on 127.0.0.1, and stops all of them at the end, on every path.
 *
 * - **Fan-out**: `BENCH_REDIS_CLUSTER_N` (10,000) subscribers over `BENCH_REDIS_INSTANCES` (3)
 *   library instances, the Redis phase's run (each session subscribes on one instance and holds
 *   its stream on the next; instance 1 notifies). Both deployments cannot hold their streams at
 *   once (the bench holds one socket per stream: 2 × 10,000 is more than `ulimit -n` 20,000
 *   less the reserve), so the runs take turns in the order one node, cluster, cluster, one node,
 *   each set up afresh, each dropping the same WARMUP_ROUNDS first notifications (a fresh
 *   deployment's first rounds run cold code and cold connections: up to 2.5× the later ones on
 *   the cluster) and measuring half of `BENCH_FANOUT_ROUNDS` (rounded up); each deployment's
 *   time and its instances' CPU per notification are the medians over both of its runs' rounds.
 *   Run back to back, drift on the shared machine decided the ratio (identical code from 1.0×
 *   to 1.25×); in this order both see the start and the end of the phase alike. Commands per
 *   notification: the INFO commandstats delta of the round with the fewest, summed over the
 *   cluster's masters (its client's slot-map upkeep left out).
 * - **tools/call at concurrency 16** on one legacy session, direct mount on the Redis backend, a
 *   server on the node and one on the cluster taking turns for `BENCH_REDIS_ECHO_ROUNDS` rounds;
 *   the best round of each. Then, on each, the round trips to Redis per request, counted with
 *   MONITOR outside the timed rounds (it slows Redis down): at concurrency 1, where every request
 *   is its own event-loop turn and so its own session lookup, and at 16, where the requests of a
 *   turn share one.
 */
import { RedisClusterProcess } from '../client/redis-cluster.js';
import { RedisProcess, type BenchRedis } from '../client/redis-server.js';
import { ServerProcess } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type {
  EchoOnBackend,
  RedisClusterResult,
  RedisFanoutResult,
  RedisTopology,
  RoundTripsPerRequest,
} from '../types.js';
import { bestRound, echoSession, type EchoSession } from './echo.js';
import { cpuUsOf, fanout } from './redis.js';
import { median } from './telemetry.js';

/** Notifications each fan-out run sends first and drops, the same on both deployments. */
export const WARMUP_ROUNDS = 2;
/** The fan-out runs in turn: each deployment once early and once late in the phase. */
const FANOUT_ORDER: readonly RedisTopology[] = ['single', 'cluster', 'cluster', 'single'];

type EchoPoint = EchoOnBackend;

/** One topology's echo session and how to measure one round on it. */
interface TopologyLoad {
  measure(): Promise<EchoPoint>;
  roundTrips(): Promise<RoundTripsPerRequest>;
  close(): Promise<void>;
}

const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

async function topologyLoad(config: BenchConfig, redis: BenchRedis, instanceId: string): Promise<TopologyLoad> {
  const server = await ServerProcess.start('library-redis', {
    env: { ...redis.instanceEnv(), MCP_INSTANCE_ID: instanceId },
    startTimeoutMs: 60_000,
  });
  const echo: EchoSession = await echoSession(config, server);
  try {
    await echo.load(16, config.warmupS);
  } catch (error) {
    await echo.close();
    throw error;
  }
  return {
    async measure() {
      const [serverBefore, redisBefore] = [await cpuUsOf(server), await redis.cpuSeconds()];
      const point: EchoPoint = await echo.load(16, config.eraDurationS);
      const answered = Math.max(1, point.ok + point.errors);
      point.serverCpuUsPerRequest = ((await cpuUsOf(server)) - serverBefore) / answered;
      point.redisCpuUsPerRequest = (((await redis.cpuSeconds()) - redisBefore) * 1e6) / answered;
      return point;
    },
    async roundTrips() {
      const at = async (concurrency: number) => {
        const { result, trips } = await redis.roundTrips(() => echo.load(concurrency, config.eraDurationS));
        if (result.errors > 0)
          throw new Error(`tools/call under MONITOR: ${result.errors} errors (${result.firstError})`);
        return { perRequest: total(trips) / Math.max(1, result.ok), trips };
      };
      const one = await at(1);
      const sixteen = await at(16);
      return { c1: one.perRequest, c16: sixteen.perRequest, commandsC1: one.trips };
    },
    close: echo.close,
  };
}

async function echoOnTopologies(
  config: BenchConfig,
  single: RedisProcess,
  cluster: RedisClusterProcess,
  log: (line: string) => void,
): Promise<NonNullable<RedisClusterResult['echo']>> {
  await Promise.all([single.flush(), cluster.flush()]);
  const onNode = await topologyLoad(config, single, 'bench-echo-node');
  try {
    const onCluster = await topologyLoad(config, cluster, 'bench-echo-cluster');
    try {
      const rounds: { single: EchoPoint; cluster: EchoPoint }[] = [];
      for (let round = 1; round <= config.redisEchoRounds; round++) {
        const pair = { single: await onNode.measure(), cluster: await onCluster.measure() };
        rounds.push(pair);
        log(
          `  echo c=16, direct mount, round ${round}: one node ${pair.single.rps.toFixed(0)} req/s, cluster ${pair.cluster.rps.toFixed(0)} req/s; CPU per request: gateway ${pair.single.serverCpuUsPerRequest?.toFixed(1)} / ${pair.cluster.serverCpuUsPerRequest?.toFixed(1)} µs, Redis ${pair.single.redisCpuUsPerRequest?.toFixed(1)} / ${pair.cluster.redisCpuUsPerRequest?.toFixed(1)} µs; errors ${pair.single.errors + pair.cluster.errors}${pair.cluster.firstError ? ` (${pair.cluster.firstError})` : ''}`,
        );
      }
      const roundTrips = { single: await onNode.roundTrips(), cluster: await onCluster.roundTrips() };
      for (const [topology, trips] of Object.entries(roundTrips)) {
        log(
          `  round trips to Redis per tools/call on ${topology === 'single' ? 'one node' : 'the cluster'}: ${trips.c1.toFixed(3)} at c=1 (${JSON.stringify(trips.commandsC1)}), ${trips.c16.toFixed(3)} at c=16`,
        );
      }
      return {
        single: bestRound(rounds.map((pair) => pair.single)),
        cluster: bestRound(rounds.map((pair) => pair.cluster)),
        rounds: rounds.map((pair) => ({ singleRps: pair.single.rps, clusterRps: pair.cluster.rps })),
        roundTrips,
        errors: rounds.reduce((sum, pair) => sum + pair.single.errors + pair.cluster.errors, 0),
      };
    } finally {
      await onCluster.close();
    }
  } finally {
    await onNode.close();
  }
}

/** One deployment's fan-out over its runs: the medians of all measured rounds, the fewest commands. */
export function mergeFanoutRuns(
  topology: RedisTopology,
  runs: RedisFanoutResult[],
): RedisClusterResult['fanout'][number] {
  const roundsMs = runs.flatMap((run) => run.roundsMs ?? []);
  const roundsCpuMs = runs.flatMap((run) => run.roundsCpuMs ?? []);
  const complete = runs.length > 0 && runs.every((run) => run.fanoutMs !== undefined);
  const fewest = runs
    .filter((run) => run.commandsPerNotification !== undefined)
    .sort((a, b) => a.commandsPerNotification! - b.commandsPerNotification!)[0];
  const sum = (pick: (run: RedisFanoutResult) => number | undefined) =>
    runs.reduce((total, run) => total + (pick(run) ?? 0), 0);
  const errors = runs.map((run) => run.error).filter((error): error is string => error !== undefined);
  return {
    topology,
    n: runs[0]?.n ?? 0,
    instances: runs[0]?.instances ?? 0,
    runs: runs.length,
    rounds: roundsMs.length,
    warmupRounds: runs[0]?.warmupRounds,
    roundsMs,
    roundsCpuMs,
    ...(complete
      ? {
          fanoutMs: median(roundsMs),
          serverCpuMs: median(roundsCpuMs),
          p50ArrivalMs: median(runs.map((run) => run.p50ArrivalMs!)),
        }
      : {}),
    setupMs: Math.max(...runs.map((run) => run.setupMs ?? 0)),
    ...(fewest ? { commandsPerNotification: fewest.commandsPerNotification, commands: fewest.commands } : {}),
    delivered: Math.min(...runs.map((run) => run.delivered ?? 0)),
    missing: sum((run) => run.missing),
    duplicates: sum((run) => run.duplicates),
    unexpected: sum((run) => run.unexpected),
    errors: sum((run) => run.errors),
    ...(errors.length > 0 ? { error: errors.join('; ') } : {}),
  };
}

/** The fan-out on both deployments, their runs in FANOUT_ORDER; one merged result per deployment. */
async function fanoutOnTopologies(
  config: BenchConfig,
  deployments: Record<RedisTopology, BenchRedis>,
  log: (line: string) => void,
): Promise<RedisClusterResult['fanout']> {
  const n = config.redisClusterFanoutN;
  const rounds = Math.ceil(config.fanoutRounds / 2);
  const runs: Record<RedisTopology, RedisFanoutResult[]> = { single: [], cluster: [] };
  for (const [index, topology] of FANOUT_ORDER.entries()) {
    const label = `${topology === 'single' ? 'one node' : 'cluster'}: fan-out (run ${index + 1} of ${FANOUT_ORDER.length})`;
    runs[topology].push(
      await fanout(config, deployments[topology], n, log, { label, rounds, warmupRounds: WARMUP_ROUNDS }),
    );
  }
  const merged = (['single', 'cluster'] as const).map((topology) => mergeFanoutRuns(topology, runs[topology]));
  for (const run of merged) {
    log(
      `  ${run.topology === 'single' ? 'one node' : 'cluster'}: fan-out N=${run.n}, median of ${run.rounds} rounds over ${run.runs} runs (${WARMUP_ROUNDS} warm-up rounds dropped in each): ${run.fanoutMs?.toFixed(1) ?? 'n/a'} ms to all; instances' CPU ${run.serverCpuMs?.toFixed(1) ?? 'n/a'} ms per notification (rounds ${run.roundsCpuMs?.map((t) => t.toFixed(1)).join(', ')})`,
    );
  }
  return merged;
}

export async function runRedisCluster(config: BenchConfig, log: (line: string) => void): Promise<RedisClusterResult> {
  const result: RedisClusterResult = { fanout: [], errors: 0 };
  let single: RedisProcess | undefined;
  let cluster: RedisClusterProcess | undefined;
  try {
    single = await RedisProcess.start();
    cluster = await RedisClusterProcess.start();
    result.redisVersion = await single.version();
    log(
      `  redis-server ${result.redisVersion}: one node on port ${single.port}; a cluster of ${cluster.masterCount} masters + ${cluster.seeds.length - cluster.masterCount} replicas on ${cluster.seeds.join(', ')} (all started by the bench)`,
    );
    result.fanout = await fanoutOnTopologies(config, { single, cluster }, log);
    result.errors += result.fanout.reduce((sum, run) => sum + run.errors, 0);
    result.echo = await echoOnTopologies(config, single, cluster, log);
    result.errors += result.echo.errors;
    log(
      `  echo c=16, direct mount, best of ${config.redisEchoRounds} rounds: one node ${result.echo.single.rps.toFixed(0)} req/s, cluster ${result.echo.cluster.rps.toFixed(0)} req/s`,
    );
  } catch (error) {
    result.error = (error as Error).message;
    result.errors++;
    log(`  redis-cluster: FAILED ${result.error}`);
  } finally {
    // Both deployments, whatever happened: a failed stop of one must not leave the other up.
    await Promise.allSettled([single?.stop(), cluster?.stop()]);
  }
  return result;
}
