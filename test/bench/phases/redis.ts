/**
 * The Redis backend (`@nest-mcp/redis`), on the bench's own `redis-server` (free port, stopped at
 * the end):
 *
 * - **Fan-out across instances**: `BENCH_REDIS_INSTANCES` (3) library fixtures (direct mount,
 *   `BENCH_BACKEND=redis`) share one Redis. Each of n sessions is created and subscribes to
 *   `mem://counter` on instance i mod 3 and opens its GET stream on instance i+1 mod 3, so
 *   every session's stream lives on another instance than its subscription was made on. One
 *   at a time, instance 1 is told over IPC to call `notifyResourceUpdated`; the time runs to
 *   the last stream holding the update (the median round). Redis commands per notification:
 *   the INFO commandstats delta across one round (the bench's own INFO left out), the round
 *   with the fewest (the instances' heartbeats fall into some rounds). Commands run inside a
 *   Lua script count too: the network sees one EVALSHA. The same fan-out at the largest N is
 *   then measured on ONE library fixture on the in-memory backend (direct mount, same client,
 *   same rounds): the single-instance time the three instances are compared with.
 * - **tools/call at concurrency 16** on one legacy session: the direct mount on the in-memory
 *   backend and on Redis, both up, taking turns for `BENCH_REDIS_ECHO_ROUNDS` rounds; the best
 *   round of each is compared.
 * - **Memory of idle sessions in Redis**: n sessions that initialized and stay idle; INFO
 *   used_memory delta per session, and MEMORY USAGE of each key of a sample of them.
 */
import { performance } from 'node:perf_hooks';
import { BenchHttp, inPool, openSession, rpc } from '../client/http.js';
import { listenBody, modernHeaders } from '../client/modern.js';
import { callsDelta, RedisProcess, type BenchRedis } from '../client/redis-server.js';
import { ServerProcess } from '../client/server-process.js';
import { StreamSet, type WatchedStream } from '../client/sse.js';
import type { BenchConfig } from '../config.js';
import { COUNTER_URI } from '../servers/fixture-spec.js';
import type { EchoOnBackend, RedisFanoutResult, RedisResult } from '../types.js';
import { bestRound, echoSession } from './echo.js';
import { notifyRounds } from './notify-rounds.js';

const WAIT_MS = 120_000;
/** Sessions whose keys MEMORY USAGE reads one by one. */
const MEMORY_SAMPLE = 100;

export const startInstances = (redis: BenchRedis, count: number): Promise<ServerProcess[]> =>
  Promise.all(
    Array.from({ length: count }, (_, i) =>
      ServerProcess.start('library-redis', {
        env: { ...redis.instanceEnv(), MCP_INSTANCE_ID: `bench-${i + 1}` },
        startTimeoutMs: 60_000,
      }),
    ),
  );

/** How a fan-out run is set up. */
export interface FanoutMode {
  /** One in-memory library process instead of the instances sharing Redis (the reference). */
  readonly single?: boolean;
  /** Modern `subscriptions/listen` streams instead of legacy subscribed sessions. */
  readonly modern?: boolean;
  /** Measured rounds (default `config.fanoutRounds`). */
  readonly rounds?: number;
  /** Rounds run first and dropped (default none). */
  readonly warmupRounds?: number;
}

/**
 * One fan-out run: on `config.redisInstances` instances sharing Redis, or (`single`) on one
 * in-memory library process, with the same client and rounds. Legacy: each session subscribes
 * on one instance and holds its GET stream on the next. Modern: listen i is opened on instance
 * i mod the count (a listen is its own stream, held where it was opened).
 */
export async function fanout(
  config: BenchConfig,
  redis: BenchRedis,
  requested: number,
  log: (line: string) => void,
  {
    single = false,
    modern = false,
    label: name,
    rounds: measuredRounds,
    warmupRounds = 0,
  }: FanoutMode & {
    label?: string;
  } = {},
): Promise<RedisFanoutResult> {
  const instances = single ? 1 : config.redisInstances;
  const n = Math.min(requested, config.fdLimit - config.fdReserve - config.setupConcurrency * instances);
  const result: RedisFanoutResult = {
    n,
    instances,
    errors: 0,
    ...(single ? { backend: 'memory' as const } : {}),
    ...(modern ? { era: 'modern' as const } : {}),
  };
  const label = `${single ? 'in-memory fan-out (one process)' : (name ?? 'redis fan-out')}${modern ? ' to listens' : ''}`;
  await redis.flush();
  const servers = single
    ? [await ServerProcess.start('library-direct', { startTimeoutMs: 60_000 })]
    : await startInstances(redis, config.redisInstances);
  const clients = servers.map((s) => new BenchHttp(s.endpoint, config.setupConcurrency));
  const set = new StreamSet(COUNTER_URI);
  const streams: WatchedStream[] = new Array(n);
  let stage = 'starting';
  try {
    stage = `opening ${n} ${modern ? 'listens' : 'subscribed sessions'} across ${servers.length} instances`;
    const setupStart = performance.now();
    const listenHeaders = modernHeaders('subscriptions/listen');
    await inPool(n, config.setupConcurrency, async (i) => {
      const home = i % servers.length;
      if (modern) {
        streams[i] = await set.open(servers[home].endpoint, listenHeaders, 30_000, listenBody(i + 1, [COUNTER_URI]));
        return;
      }
      const session = await openSession(clients[home]);
      await rpc(clients[home], session, 'resources/subscribe', { uri: COUNTER_URI });
      streams[i] = await set.open(servers[(home + 1) % servers.length].endpoint, session.headers);
    });
    if (modern && !(await set.waitUntil(() => set.totalAcknowledged >= n, WAIT_MS))) {
      throw new Error(`only ${set.totalAcknowledged} of ${n} listens were acknowledged`);
    }
    result.setupMs = performance.now() - setupStart;
    // Let the stream attachments settle (the holder record is written as the stream opens).
    await new Promise((resolve) => setTimeout(resolve, 500));

    stage = 'measuring';
    const perRound: Array<Record<string, number>> = [];
    let before: Record<string, number> = {};
    const rounds = await notifyRounds(
      servers[0],
      set,
      streams,
      measuredRounds ?? config.fanoutRounds,
      WAIT_MS,
      single
        ? {}
        : {
            before: async () => {
              before = await redis.commandCalls();
            },
            after: async () => {
              perRound.push(callsDelta(before, await redis.commandCalls()));
            },
          },
      servers,
      warmupRounds,
    );
    Object.assign(result, rounds.summary);
    if (perRound.length > 0) {
      // The round with the fewest: the instances' heartbeats (a PEXPIRE and HGET per held
      // stream, every 5 s) land in some rounds and are not the notification's.
      const totals = perRound.map((calls) => Object.values(calls).reduce((a, b) => a + b, 0));
      const fewest = totals.indexOf(Math.min(...totals));
      result.commandsPerNotification = totals[fewest];
      result.commands = perRound[fewest];
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = result.rounds! + warmupRounds;
    result.delivered = streams.filter((s) => s.counters.updated === sent).length;
    result.missing = streams.filter((s) => s.counters.updated < sent).length;
    result.duplicates = streams.filter((s) => s.counters.updated > sent).length;
    result.unexpected =
      streams.filter(
        (s) => s.counters.otherUpdated > 0 || s.counters.unexpected > 0 || (modern && s.counters.acknowledged !== 1),
      ).length + set.endedEarly;
    result.errors += result.missing + result.duplicates + result.unexpected + (rounds.complete ? 0 : 1);
    log(
      `  ${label} N=${n} over ${servers.length} instance${servers.length > 1 ? 's' : ''}: ${result.fanoutMs?.toFixed(1) ?? 'TIMEOUT'} ms to all (median of ${result.rounds}${warmupRounds ? ` after ${warmupRounds} warm-up` : ''}: ${result.roundsMs?.map((t) => t.toFixed(1)).join(', ')}; p50 ${result.p50ArrivalMs?.toFixed(1)} ms; instances' CPU ${result.serverCpuMs?.toFixed(1)} ms); ${single ? 'no Redis' : `${result.commandsPerNotification ?? '?'} Redis commands per notification ${JSON.stringify(result.commands ?? {})}`}; missing ${result.missing}, duplicates ${result.duplicates}, unexpected ${result.unexpected}; setup ${((result.setupMs ?? 0) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    result.error = `${(error as Error).message} (while ${stage}; ${set.streams.length} streams opened)`;
    result.errors++;
    log(`  ${label} N=${n}: FAILED ${result.error}\n${servers.map((s) => s.log).join('\n')}`);
  } finally {
    set.closeAll();
    for (const client of clients) client.close();
    await Promise.all(servers.map((s) => s.stop()));
  }
  return result;
}

export const cpuUsOf = async (server: ServerProcess): Promise<number> => {
  const { cpu } = await server.command<{ cpu: { user: number; system: number } }>('cpu');
  return cpu.user + cpu.system;
};

/** One server's tools/call echo at concurrency 16 on one legacy session, measured as often as asked. */
interface EchoLoad {
  /** One measured load point, with the CPU the gateway and `redis-server` spent per request. */
  measure(): Promise<EchoOnBackend>;
  close(): Promise<void>;
}

/**
 * Opens a session on `server`, warms it up, and measures on demand. Each point carries the CPU
 * the gateway and `redis-server` spent per request: they share the machine with the load
 * generator, so where the CPU goes explains the Redis ratio.
 */
async function echoLoad(config: BenchConfig, redis: RedisProcess, server: ServerProcess): Promise<EchoLoad> {
  const echo = await echoSession(config, server);
  try {
    await echo.load(16, config.warmupS);
    const measure = async (): Promise<EchoOnBackend> => {
      const [serverBefore, redisBefore] = [await cpuUsOf(server), await redis.cpuSeconds()];
      const point: EchoOnBackend = await echo.load(16, config.eraDurationS);
      const answered = Math.max(1, point.ok + point.errors);
      point.serverCpuUsPerRequest = ((await cpuUsOf(server)) - serverBefore) / answered;
      point.redisCpuUsPerRequest = (((await redis.cpuSeconds()) - redisBefore) * 1e6) / answered;
      return point;
    };
    return { measure, close: echo.close };
  } catch (error) {
    await echo.close();
    throw error;
  }
}

/**
 * tools/call echo at concurrency 16, the direct mount on the in-memory backend vs on Redis. Both
 * servers stay up and take turns, `config.redisEchoRounds` rounds each, and the best round of
 * each is compared: on this machine identical runs differ by up to a third (shared cores, the
 * load generator beside the servers), so a single pair of runs may set a fast moment of one
 * against a slow moment of the other.
 */
async function echoOnBackends(
  config: BenchConfig,
  redis: RedisProcess,
  log: (line: string) => void,
): Promise<NonNullable<RedisResult['echo']>> {
  await redis.flush();
  const memory = await echoLoad(config, redis, await ServerProcess.start('library-direct'));
  try {
    const onRedis = await echoLoad(
      config,
      redis,
      await ServerProcess.start('library-redis', { env: { REDIS_URL: redis.url, MCP_INSTANCE_ID: 'bench-echo' } }),
    );
    try {
      const rounds: { memory: EchoOnBackend; redis: EchoOnBackend }[] = [];
      for (let round = 1; round <= config.redisEchoRounds; round++) {
        const pair = { memory: await memory.measure(), redis: await onRedis.measure() };
        rounds.push(pair);
        log(
          `  echo c=16, direct mount, round ${round}: in-memory ${pair.memory.rps.toFixed(0)} req/s, Redis ${pair.redis.rps.toFixed(0)} req/s (p50 ${pair.memory.p50Ms.toFixed(2)} / ${pair.redis.p50Ms.toFixed(2)} ms; CPU per request: gateway ${pair.memory.serverCpuUsPerRequest?.toFixed(1)} / ${pair.redis.serverCpuUsPerRequest?.toFixed(1)} µs, redis-server ${pair.redis.redisCpuUsPerRequest?.toFixed(1)} µs), errors ${pair.memory.errors + pair.redis.errors}${pair.redis.firstError ? ` (${pair.redis.firstError})` : ''}`,
        );
      }
      return {
        memory: bestRound(rounds.map((pair) => pair.memory)),
        redis: bestRound(rounds.map((pair) => pair.redis)),
        rounds: rounds.map((pair) => ({ memoryRps: pair.memory.rps, redisRps: pair.redis.rps })),
        errors: rounds.reduce((sum, pair) => sum + pair.memory.errors + pair.redis.errors, 0),
      };
    } finally {
      await onRedis.close();
    }
  } finally {
    await memory.close();
  }
}

async function idleMemory(config: BenchConfig, redis: RedisProcess): Promise<NonNullable<RedisResult['memory']>> {
  await redis.flush();
  const [server] = await startInstances(redis, 1);
  const http = new BenchHttp(server.endpoint, config.setupConcurrency);
  try {
    await openSession(http); // the first session writes the shared indexes
    const before = await redis.usedMemory();
    const n = config.redisMemoryN;
    const ids: string[] = new Array(n);
    await inPool(n, config.setupConcurrency, async (i) => {
      ids[i] = (await openSession(http)).id;
    });
    const after = await redis.usedMemory();
    const sample = ids.slice(0, Math.min(MEMORY_SAMPLE, n));
    let bytes = 0;
    let keys = 0;
    for (const id of sample) {
      const used = await redis.memoryOfKeys(`*{${id}}*`);
      bytes += used.bytes;
      keys += used.keys;
    }
    return {
      sessions: n,
      usedMemoryPerSessionBytes: (after - before) / n,
      memoryUsagePerSessionBytes: bytes / sample.length,
      keysPerSession: keys / sample.length,
      sampled: sample.length,
    };
  } finally {
    http.close();
    await server.stop();
  }
}

export async function runRedis(config: BenchConfig, log: (line: string) => void): Promise<RedisResult> {
  const result: RedisResult = { fanout: [], errors: 0 };
  let redis: RedisProcess | undefined;
  try {
    redis = await RedisProcess.start();
    result.redisVersion = await redis.version();
    log(`  redis-server ${result.redisVersion} on port ${redis.port} (started by the bench)`);
    for (const n of config.redisFanoutN) {
      const run = await fanout(config, redis, n, log);
      result.fanout.push(run);
      result.errors += run.errors;
    }
    // The single-instance reference for the largest N (the target: within 2x of it on 3 instances).
    const largest = Math.max(...config.redisFanoutN);
    result.singleInstance = await fanout(config, redis, largest, log, { single: true });
    result.errors += result.singleInstance.errors;
    // The same for modern listens: across the instances (one publish reaches every instance's
    // listens), then the one-process reference at the largest N.
    result.listenFanout = [];
    for (const n of config.redisFanoutN) {
      const run = await fanout(config, redis, n, log, { modern: true });
      result.listenFanout.push(run);
      result.errors += run.errors;
    }
    result.listenSingleInstance = await fanout(config, redis, largest, log, { single: true, modern: true });
    result.errors += result.listenSingleInstance.errors;
    result.echo = await echoOnBackends(config, redis, log);
    result.errors += result.echo.errors;
    log(
      `  echo c=16, direct mount, best of ${config.redisEchoRounds} rounds: in-memory ${result.echo.memory.rps.toFixed(0)} req/s, Redis ${result.echo.redis.rps.toFixed(0)} req/s`,
    );
    result.memory = await idleMemory(config, redis);
    log(
      `  idle sessions in Redis (${result.memory.sessions}): used_memory ${(result.memory.usedMemoryPerSessionBytes / 1024).toFixed(2)} KB/session; MEMORY USAGE ${(result.memory.memoryUsagePerSessionBytes / 1024).toFixed(2)} KB/session over ${result.memory.keysPerSession.toFixed(1)} keys (sample of ${result.memory.sampled})`,
    );
  } catch (error) {
    result.error = (error as Error).message;
    result.errors++;
    log(`  redis: FAILED ${result.error}`);
  } finally {
    await redis?.stop();
  }
  return result;
}
