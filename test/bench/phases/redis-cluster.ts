/**
 * The Redis backend on one node and on a Redis Cluster (three masters, a replica each), in one
 * go: the bench starts its own `redis-server` and its own cluster (six more `redis-server`
 * processes), all on 127.0.0.1, and stops all of them at the end, on every path.
 *
 * - **Fan-out**: `BENCH_REDIS_CLUSTER_N` (10,000) subscribers over `BENCH_REDIS_INSTANCES` (3)
 *   library instances, the Redis phase's run (each session subscribes on one instance and holds
 *   its stream on the next; instance 1 notifies), on the node, then on the cluster. Commands per
 *   notification: the INFO commandstats delta of the round with the fewest, summed over the
 *   cluster's masters (its client's slot-map upkeep left out).
 * - **tools/call at concurrency 16** on one legacy session, direct mount on the Redis backend, a
 *   server on the node and one on the cluster taking turns for `BENCH_REDIS_ECHO_ROUNDS` rounds;
 *   the best round of each, with the Redis commands per request (the commandstats delta of the
 *   round over its answered requests).
 */
import { RedisClusterProcess } from '../client/redis-cluster.js';
import { callsDelta, RedisProcess, type BenchRedis } from '../client/redis-server.js';
import { ServerProcess } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { EchoOnBackend, RedisClusterResult } from '../types.js';
import { bestRound, echoSession, type EchoSession } from './echo.js';
import { cpuUsOf, fanout } from './redis.js';

type EchoPoint = EchoOnBackend & { commandsPerRequest?: number };

/** One topology's echo session and how to measure one round on it. */
interface TopologyLoad {
  measure(): Promise<EchoPoint>;
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
      const [serverBefore, redisBefore, callsBefore] = [
        await cpuUsOf(server),
        await redis.cpuSeconds(),
        await redis.commandCalls(),
      ];
      const point: EchoPoint = await echo.load(16, config.eraDurationS);
      const answered = Math.max(1, point.ok + point.errors);
      point.serverCpuUsPerRequest = ((await cpuUsOf(server)) - serverBefore) / answered;
      point.redisCpuUsPerRequest = (((await redis.cpuSeconds()) - redisBefore) * 1e6) / answered;
      point.commandsPerRequest = total(callsDelta(callsBefore, await redis.commandCalls())) / answered;
      return point;
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
          `  echo c=16, direct mount, round ${round}: one node ${pair.single.rps.toFixed(0)} req/s, cluster ${pair.cluster.rps.toFixed(0)} req/s; Redis commands per request ${pair.single.commandsPerRequest?.toFixed(2)} / ${pair.cluster.commandsPerRequest?.toFixed(2)}; CPU per request: gateway ${pair.single.serverCpuUsPerRequest?.toFixed(1)} / ${pair.cluster.serverCpuUsPerRequest?.toFixed(1)} µs, Redis ${pair.single.redisCpuUsPerRequest?.toFixed(1)} / ${pair.cluster.redisCpuUsPerRequest?.toFixed(1)} µs; errors ${pair.single.errors + pair.cluster.errors}${pair.cluster.firstError ? ` (${pair.cluster.firstError})` : ''}`,
        );
      }
      return {
        single: bestRound(rounds.map((pair) => pair.single)),
        cluster: bestRound(rounds.map((pair) => pair.cluster)),
        rounds: rounds.map((pair) => ({
          singleRps: pair.single.rps,
          clusterRps: pair.cluster.rps,
          singleCommandsPerRequest: pair.single.commandsPerRequest ?? Number.NaN,
          clusterCommandsPerRequest: pair.cluster.commandsPerRequest ?? Number.NaN,
        })),
        errors: rounds.reduce((sum, pair) => sum + pair.single.errors + pair.cluster.errors, 0),
      };
    } finally {
      await onCluster.close();
    }
  } finally {
    await onNode.close();
  }
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
    const n = config.redisClusterFanoutN;
    const topologies = [
      { topology: 'single' as const, redis: single as BenchRedis, label: 'one node: fan-out' },
      { topology: 'cluster' as const, redis: cluster as BenchRedis, label: 'cluster: fan-out' },
    ];
    for (const { topology, redis, label } of topologies) {
      const run = await fanout(config, redis, n, log, { label });
      result.fanout.push({ ...run, topology });
      result.errors += run.errors;
    }
    result.echo = await echoOnTopologies(config, single, cluster, log);
    result.errors += result.echo.errors;
    log(
      `  echo c=16, direct mount, best of ${config.redisEchoRounds} rounds: one node ${result.echo.single.rps.toFixed(0)} req/s (${result.echo.single.commandsPerRequest?.toFixed(2)} commands/request), cluster ${result.echo.cluster.rps.toFixed(0)} req/s (${result.echo.cluster.commandsPerRequest?.toFixed(2)} commands/request)`,
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
