/**
 * The Redis Cluster phase's table and targets (phases/redis-cluster.ts), one node against a
 * cluster of three masters, within one run:
 *
 * - `tools/call` at concurrency 16 on the cluster at least as fast as on one node (≥ 0.95×: the
 *   noise left after the best of interleaved rounds);
 * - fan-out to `BENCH_REDIS_CLUSTER_N` subscribers over the instances on the cluster as fast as
 *   on one node (≤ 1.10× the time; each the median of its rounds over runs that took turns, the
 *   same warm-up rounds dropped in each), with the instances' CPU per notification, cluster ÷ one
 *   node, beside it for information (where the time goes);
 * - round trips to Redis per request the same on both, and at most one (one request at a time,
 *   where no two requests share a session lookup; within 0.02: an instance's heartbeat, a few
 *   commands every 5 s, falls into a window of thousands of requests);
 * - Redis commands per notification the same on both (the round with the fewest of each, exactly).
 */
import type { RedisClusterResult, RedisTopology, TargetResult } from '../types.js';
import { AS_FAST_MIN, FANOUT_AS_FAST_MAX } from './fastify-report.js';
import type { PeerTable } from './peer-tables.js';

/** Round trips per request count as "the same" (and "at most one") within this: heartbeats in a window. */
export const ROUND_TRIPS_SLACK = 0.02;

const ratio = (a?: number, b?: number) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);
const judge = (value: number | undefined, ok: (v: number) => boolean) => (value === undefined ? null : ok(value));
const ratioText = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(2)}x`);

const fanoutOf = (result: RedisClusterResult, topology: RedisTopology) =>
  result.fanout.find((f) => f.topology === topology && f.errors === 0 && f.fanoutMs !== undefined);

const tripsOf = (result: RedisClusterResult, topology: RedisTopology) => result.echo?.roundTrips[topology];

/** How the fan-out rounds were taken, e.g. "median of 8 rounds over 2 runs, 2 warm-up rounds dropped per run". */
function fanoutMethod(result: RedisClusterResult): string {
  const run = result.fanout[0];
  if (!run) return 'n/a';
  const runs = run.runs ?? 1;
  return `median of ${run.rounds ?? 0} rounds over ${runs} run${runs === 1 ? '' : 's'}, ${run.warmupRounds ?? 0} warm-up rounds dropped per run`;
}

export function redisClusterTable(result: RedisClusterResult | undefined): PeerTable | undefined {
  if (!result) return undefined;
  const topologies: RedisTopology[] = ['single', 'cluster'];
  const echo = (topology: RedisTopology) => (topology === 'single' ? result.echo?.single : result.echo?.cluster);
  const rows: PeerTable['rows'] = [
    {
      metric: `tools/call c=16, direct mount (best of ${result.echo?.rounds.length ?? 0} interleaved rounds)`,
      unit: 'req/s',
      better: 'higher',
      values: topologies.map((t) => echo(t)?.rps),
    },
    {
      metric: 'tools/call c=1: round trips to Redis per request',
      unit: 'round trips',
      better: 'lower',
      values: topologies.map((t) => tripsOf(result, t)?.c1),
    },
    {
      metric: 'tools/call c=16: round trips to Redis per request (a turn shares one lookup)',
      unit: 'round trips',
      better: 'lower',
      values: topologies.map((t) => tripsOf(result, t)?.c16),
    },
    {
      metric: 'tools/call c=16: Redis CPU per request (all masters)',
      unit: 'µs',
      better: 'lower',
      values: topologies.map((t) => echo(t)?.redisCpuUsPerRequest),
    },
  ];
  const n = result.fanout[0]?.n;
  const instances = result.fanout[0]?.instances;
  const method = fanoutMethod(result);
  rows.push(
    {
      metric: `fan-out N=${n} over ${instances} instances: notify → last stream (${method})`,
      unit: 'ms',
      better: 'lower',
      values: topologies.map((t) => fanoutOf(result, t)?.fanoutMs),
    },
    {
      metric: `fan-out N=${n}: CPU of the ${instances} instances per notification (median round)`,
      unit: 'ms',
      better: 'lower',
      values: topologies.map((t) => fanoutOf(result, t)?.serverCpuMs),
    },
    {
      metric: `fan-out N=${n}: Redis commands per notification`,
      unit: 'commands',
      better: 'lower',
      values: topologies.map((t) => fanoutOf(result, t)?.commandsPerNotification),
    },
  );
  return {
    title: `Redis backend: one node vs a cluster of three masters (redis-server ${result.redisVersion ?? '?'})`,
    columns: ['one node', 'cluster'],
    rows,
  };
}

export function evaluateRedisClusterTargets(result: RedisClusterResult | undefined): TargetResult[] {
  if (!result) return [];
  const targets: TargetResult[] = [];
  const rps = (point?: { rps: number; errors: number }) => (point?.errors === 0 ? point.rps : undefined);
  const echo = ratio(rps(result.echo?.cluster), rps(result.echo?.single));
  targets.push({
    id: 'redis-cluster-echo-c16-vs-node',
    server: 'library-redis',
    text: 'tools/call c=16 on the Redis backend, a cluster of three masters vs one node (direct mount)',
    threshold: `>= ${AS_FAST_MIN.toFixed(2)}x`,
    value: echo,
    detail:
      echo === undefined
        ? 'n/a'
        : `${ratioText(echo)} (${result.echo!.cluster.rps.toFixed(0)} vs ${result.echo!.single.rps.toFixed(0)} req/s, best of ${result.echo!.rounds.length} interleaved rounds each)`,
    pass: judge(echo, (v) => v >= AS_FAST_MIN),
  });
  const [single, cluster] = [fanoutOf(result, 'single'), fanoutOf(result, 'cluster')];
  const time = ratio(cluster?.fanoutMs, single?.fanoutMs);
  targets.push({
    id: 'redis-cluster-fanout-vs-node',
    server: 'library-redis',
    text: `fan-out to ${(cluster?.n ?? single?.n ?? 10_000).toLocaleString('en-US')} subscribers over ${cluster?.instances ?? single?.instances ?? 3} instances, a cluster vs one node`,
    threshold: `<= ${FANOUT_AS_FAST_MAX.toFixed(2)}x`,
    value: time,
    detail:
      time === undefined
        ? 'n/a'
        : `${ratioText(time)} (${cluster!.fanoutMs!.toFixed(1)} vs ${single!.fanoutMs!.toFixed(1)} ms, each the ${fanoutMethod(result)}, the runs taking turns)`,
    pass: judge(time, (v) => v <= FANOUT_AS_FAST_MAX),
  });
  const cpu = ratio(cluster?.serverCpuMs, single?.serverCpuMs);
  targets.push({
    id: 'redis-cluster-fanout-cpu-vs-node',
    server: 'library-redis',
    informational: true,
    text: `fan-out to ${(cluster?.n ?? single?.n ?? 10_000).toLocaleString('en-US')} subscribers: CPU of the ${cluster?.instances ?? single?.instances ?? 3} instances per notification, a cluster vs one node`,
    threshold: 'informational',
    value: cpu,
    detail:
      cpu === undefined
        ? 'n/a'
        : `${ratioText(cpu)} (${cluster!.serverCpuMs!.toFixed(1)} vs ${single!.serverCpuMs!.toFixed(1)} ms, median round)`,
    pass: null,
  });
  const [tripsNode, tripsCluster] = [tripsOf(result, 'single')?.c1, tripsOf(result, 'cluster')?.c1];
  const tripsDiff = tripsNode !== undefined && tripsCluster !== undefined ? tripsCluster - tripsNode : undefined;
  targets.push({
    id: 'redis-cluster-round-trips-per-request',
    server: 'library-redis',
    text: 'round trips to Redis per tools/call (one at a time), a cluster vs one node, each at most one',
    threshold: `equal and <= 1 (within ${ROUND_TRIPS_SLACK})`,
    value: tripsDiff,
    detail:
      tripsDiff === undefined
        ? 'n/a'
        : `${tripsCluster!.toFixed(3)} vs ${tripsNode!.toFixed(3)} round trips per request (cluster ${JSON.stringify(tripsOf(result, 'cluster')!.commandsC1)}; one node ${JSON.stringify(tripsOf(result, 'single')!.commandsC1)})`,
    pass: judge(
      tripsDiff,
      (v) => Math.abs(v) <= ROUND_TRIPS_SLACK && Math.max(tripsNode!, tripsCluster!) <= 1 + ROUND_TRIPS_SLACK,
    ),
  });
  const [perNoteNode, perNoteCluster] = [single?.commandsPerNotification, cluster?.commandsPerNotification];
  targets.push({
    id: 'redis-cluster-commands-per-notification',
    server: 'library-redis',
    text: `Redis commands per notification to ${(cluster?.n ?? single?.n ?? 10_000).toLocaleString('en-US')} subscribers, a cluster vs one node`,
    threshold: 'equal',
    value: perNoteNode !== undefined && perNoteCluster !== undefined ? perNoteCluster - perNoteNode : undefined,
    detail:
      perNoteNode === undefined || perNoteCluster === undefined
        ? 'n/a'
        : `${perNoteCluster} vs ${perNoteNode} commands (cluster ${JSON.stringify(cluster!.commands ?? {})}; one node ${JSON.stringify(single!.commands ?? {})})`,
    pass: perNoteNode === undefined || perNoteCluster === undefined ? null : perNoteCluster === perNoteNode,
  });
  return targets;
}
