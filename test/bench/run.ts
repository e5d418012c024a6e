/**
 * `npm run bench`: the six servers (the library twice: controller mount and direct mount; tmcp
 * last), one after the other, each in its own child process on 127.0.0.1; every response
 * checked; then the phases of the peers, the Redis backend, tasks, the telemetry overhead, the
 * library on Nest's Fastify platform and the Redis backend on a cluster.
 * Prints a table, the throughput, stream and telemetry targets and the peer phases as PASS/FAIL lines and a
 * markdown snippet for docs/benchmarks.md; writes JSON, SVG and PNG under test/bench/results/.
 * Settings: see config.ts (BENCH_SMOKE=1 for the tiny run the e2e test does; `--phases=` and
 * `--servers=` to run a part).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LIBRARY_KINDS, MOUNT_LABELS, SERVER_LABELS, type ServerKind } from './client/server-process.js';
import { loadConfig } from './config.js';
import { runEcho } from './phases/echo.js';
import { erasOf, runEra } from './phases/era.js';
import { LISTEN_SERVERS, runListenFanout } from './phases/listen.js';
import { runFastify } from './phases/fastify.js';
import { runRedis } from './phases/redis.js';
import { runRedisCluster } from './phases/redis-cluster.js';
import { runTasks } from './phases/tasks.js';
import { runTelemetry } from './phases/telemetry.js';
import { fanoutSizes, runFanout } from './phases/fanout.js';
import { runMemory } from './phases/memory.js';
import { profileEcho, profileFanout, profileListen, profileModernEcho } from './phases/profile.js';
import { runResources } from './phases/resources.js';
import { buildSvg, svgToPng } from './report/chart.js';
import { formatProfile } from './report/cpu-profile.js';
import { collectMeta } from './report/meta.js';
import {
  eraTable,
  listenTable,
  peerConsole,
  peerMarkdown,
  redisTable,
  tasksTable,
  telemetryTable,
} from './report/peer-tables.js';
import { evaluatePeerTargets, evaluateTelemetryTargets } from './report/peer-targets.js';
import { evaluateFastifyTargets, fastifyTable } from './report/fastify-report.js';
import { evaluateRedisClusterTargets, redisClusterTable } from './report/redis-cluster-report.js';
import { buildRows, consoleTable, markdown, targetsMarkdown, verdict } from './report/table.js';
import { evaluateStreamTargets } from './report/stream-targets.js';
import { evaluateTargets } from './report/targets.js';
import type {
  EchoResult,
  EraResult,
  FanoutResult,
  FastifyResult,
  ListenFanoutResult,
  MemoryResult,
  ProfileSummary,
  RedisClusterResult,
  RedisResult,
  ResourcesResult,
  TasksResult,
  TelemetryResult,
} from './types.js';

const FLOORS: readonly ServerKind[] = ['nest-floor', 'node-floor'];
/** Servers with runtime resources (the floors answer tools/call only). */
const WITH_RESOURCES: readonly ServerKind[] = ['library', 'sdk', 'library-direct'];

async function main(): Promise<number> {
  const config = loadConfig();
  const started = performance.now();
  const log = (line: string) => console.log(line);
  mkdirSync(config.resultsDir, { recursive: true });
  const meta = collectMeta(config.durationS, config.smoke, config.fdLimit);
  const stamp = meta.date.replace(/[:.]/g, '-');

  log(
    `MCP server benchmark${config.smoke ? ' (SMOKE)' : ''}: ${meta.machine.cpus} x ${meta.machine.model}, Node ${meta.node}`,
  );
  log(
    `servers: ${config.servers.map((s) => SERVER_LABELS[s]).join(', ')}; phases: ${config.phases.join(', ')}; ${config.requestsPerPoint === undefined ? `${config.durationS} s per load point (warm-up ${config.warmupS} s)` : `${config.requestsPerPoint} requests per load point and warm-up`}`,
  );
  const sizes = config.fanoutN.map((n) => fanoutSizes(config, n));
  log(
    `ulimit -n ${config.fdLimit}: fan-out runs ${sizes.map((s) => `N=${s.n} + ${s.unsubscribed} unsubscribed`).join(', ')} (one socket per stream on each side; floors up to N=${config.fanoutFloorMax})`,
  );

  const echo: EchoResult[] = [];
  const fanout: FanoutResult[] = [];
  const memory: MemoryResult[] = [];
  const resources: ResourcesResult[] = [];
  const era: EraResult[] = [];
  const listen: ListenFanoutResult[] = [];
  let redis: RedisResult | undefined;
  let tasks: TasksResult | undefined;
  let telemetry: TelemetryResult | undefined;
  let fastify: FastifyResult | undefined;
  let redisCluster: RedisClusterResult | undefined;

  const phaseStart = () => {
    const t = performance.now();
    return () => log(`  (${((performance.now() - t) / 1_000).toFixed(1)} s)`);
  };
  if (config.phases.includes('echo')) {
    const done = phaseStart();
    log('\n== tools/call echo (one session)');
    for (const kind of config.servers) echo.push(await runEcho(config, kind, log));
    done();
  }
  if (config.phases.includes('fanout')) {
    log('\n== fan-out');
    const done = phaseStart();
    for (const n of config.fanoutN) {
      for (const kind of config.servers) {
        if (FLOORS.includes(kind) && n > config.fanoutFloorMax) continue;
        fanout.push(await runFanout(config, kind, n, log));
      }
    }
    done();
  }
  if (config.phases.includes('memory')) {
    log('\n== memory (idle sessions, after forced GC)');
    const done = phaseStart();
    for (const kind of config.servers) memory.push(await runMemory(config, kind, log));
    done();
  }
  if (config.phases.includes('resources')) {
    log(`\n== resources (${config.resourcesN} runtime resources)`);
    const done = phaseStart();
    for (const kind of config.servers) {
      if (WITH_RESOURCES.includes(kind)) resources.push(await runResources(config, kind, log));
    }
    done();
  }

  if (config.phases.includes('era')) {
    log(
      `\n== tools/call echo by protocol era (legacy session vs modern 2026-07-28; ${config.eraDurationS} s per point)`,
    );
    const done = phaseStart();
    for (const kind of config.eraServers) era.push(...(await runEra(config, kind, erasOf(kind), log)));
    done();
  }
  if (config.phases.includes('listen')) {
    log('\n== subscriptions/listen fan-out (modern era)');
    const done = phaseStart();
    for (const n of config.listenN) {
      for (const kind of LISTEN_SERVERS) listen.push(await runListenFanout(config, kind, n, log));
    }
    done();
  }
  if (config.phases.includes('redis')) {
    log('\n== Redis backend');
    const done = phaseStart();
    redis = await runRedis(config, log);
    done();
  }
  if (config.phases.includes('tasks')) {
    log(`\n== tasks (${config.tasksN} tasks on ${config.redisInstances} instances sharing Redis)`);
    const done = phaseStart();
    tasks = await runTasks(config, log);
    done();
  }
  if (config.phases.includes('telemetry')) {
    log(
      `\n== telemetry overhead (tools/call echo c=16; off, api and sdk servers taking turns, ${config.telemetryRounds} rounds of ${config.telemetryDurationS} s)`,
    );
    const done = phaseStart();
    telemetry = await runTelemetry(config, log);
    done();
  }
  if (config.phases.includes('fastify')) {
    log(
      `\n== Nest on Fastify vs Express (tools/call c=16, ${config.fastifyRounds} interleaved rounds of ${config.eraDurationS} s; fan-out to ${config.fastifyFanoutN}, Fastify and Express taking turns for ${config.fastifyFanoutRounds} rounds; the official SDK v2 on Fastify as a peer; subscriptions/listen fan-out to ${config.fastifyFanoutN} on the MCP servers on Fastify)`,
    );
    const done = phaseStart();
    fastify = await runFastify(config, log);
    done();
  }
  if (config.phases.includes('redis-cluster')) {
    log(
      `\n== Redis backend: one node vs a cluster of three masters (fan-out to ${config.redisClusterFanoutN} over ${config.redisInstances} instances; tools/call c=16)`,
    );
    const done = phaseStart();
    redisCluster = await runRedisCluster(config, log);
    done();
  }

  const echoErrors = echo.reduce(
    (sum, e) => sum + (e.error ? 1 : 0) + e.points.reduce((s, p) => s + p.errors, 0) + (e.warmup?.errors ?? 0),
    0,
  );
  const totalErrors =
    echoErrors +
    fanout.reduce((sum, f) => sum + f.errors, 0) +
    memory.reduce((sum, m) => sum + m.errors, 0) +
    resources.reduce((sum, r) => sum + r.errors, 0) +
    era.reduce(
      (sum, e) => sum + (e.error ? 1 : 0) + e.points.reduce((s, p) => s + p.errors, 0) + (e.warmup?.errors ?? 0),
      0,
    ) +
    listen.reduce((sum, l) => sum + l.errors, 0) +
    (redis?.errors ?? 0) +
    (tasks?.errors ?? 0) +
    (telemetry?.errors ?? 0) +
    (fastify?.errors ?? 0) +
    (redisCluster?.errors ?? 0);
  const targets = [
    ...evaluateTargets(echo, fanout, memory, totalErrors),
    ...evaluatePeerTargets(era, listen, redis, tasks),
    ...evaluateTelemetryTargets(telemetry),
    ...evaluateFastifyTargets(fastify),
    ...evaluateRedisClusterTargets(redisCluster),
  ];
  const streamTargets = evaluateStreamTargets(echo, fanout, memory);

  const profiles: ProfileSummary[] = [];
  const failed = (kind: ServerKind, prefix: string) =>
    targets.some((t) => t.server === kind && t.id.startsWith(prefix) && t.pass === false);
  const dir = join(config.resultsDir, 'profiles', stamp);
  for (const kind of LIBRARY_KINDS) {
    if (!config.servers.includes(kind) || config.profile === 'never') continue;
    const always = config.profile === 'always';
    const name = kind === 'library' ? '' : '-direct';
    if (always || failed(kind, 'echo-')) {
      log(`\n== CPU profile of the library (${MOUNT_LABELS[kind]}): tools/call echo`);
      try {
        profiles.push(await profileEcho(config, join(dir, `echo${name}`), kind));
      } catch (error) {
        log(`  profile failed: ${(error as Error).message}`);
      }
    }
    const failedStream = streamTargets.some(
      (t) => t.server === kind && t.pass === false && /^stream-(fanout|bump)-/.test(t.id),
    );
    if (always || failed(kind, 'fanout-') || failed(kind, 'notify-') || failedStream) {
      const n = Math.max(...config.fanoutN);
      log(`\n== CPU profile of the library (${MOUNT_LABELS[kind]}): fan-out to ${n}`);
      try {
        profiles.push(await profileFanout(config, join(dir, `fanout${name}`), n, kind));
      } catch (error) {
        log(`  profile failed: ${(error as Error).message}`);
      }
    }
  }

  for (const kind of LIBRARY_KINDS) {
    if (config.profile === 'never') continue;
    const always = config.profile === 'always';
    const name = kind === 'library' ? '' : '-direct';
    if ((always && config.phases.includes('era')) || failed(kind, 'modern-')) {
      log(`\n== CPU profile of the library (${MOUNT_LABELS[kind]}): modern tools/call echo`);
      try {
        profiles.push(await profileModernEcho(config, join(dir, `modern-echo${name}`), kind));
      } catch (error) {
        log(`  profile failed: ${(error as Error).message}`);
      }
    }
    if ((always && config.phases.includes('listen')) || failed(kind, 'listen-')) {
      const n = Math.min(...config.listenN.filter((size) => size >= 1_000), Math.max(...config.listenN));
      log(`\n== CPU profile of the library (${MOUNT_LABELS[kind]}): subscriptions/listen fan-out to ${n}`);
      try {
        profiles.push(await profileListen(config, join(dir, `listen${name}`), n, kind));
      } catch (error) {
        log(`  profile failed: ${(error as Error).message}`);
      }
    }
  }

  // A mount whose instruments cost more than the target with no SDK: both builds profiled, so
  // the library frames of the instrumented one can be set against the other's.
  for (const kind of LIBRARY_KINDS) {
    if (config.profile === 'never' || !telemetry?.mounts.some((m) => m.server === kind)) continue;
    if (config.profile !== 'always' && !failed(kind, 'telemetry-api-')) continue;
    const name = kind === 'library' ? '' : '-direct';
    for (const mode of ['off', 'api']) {
      log(`\n== CPU profile of the library (${MOUNT_LABELS[kind]}, telemetry ${mode}): tools/call echo`);
      try {
        profiles.push(
          await profileEcho(config, join(dir, `telemetry-${mode}${name}`), kind, { BENCH_TELEMETRY: mode }),
        );
      } catch (error) {
        log(`  profile failed: ${(error as Error).message}`);
      }
    }
  }

  meta.totalSeconds = (performance.now() - started) / 1_000;
  const rows = buildRows(echo, fanout, memory, resources);
  log('\n== results\n');
  log(consoleTable(rows));
  const peerTables = [
    eraTable(era),
    listenTable(listen),
    redisTable(redis),
    tasksTable(tasks),
    telemetryTable(telemetry),
    fastifyTable(fastify),
    redisClusterTable(redisCluster),
  ].filter((t) => t !== undefined);
  for (const table of peerTables) log(`\n${peerConsole(table)}`);
  log('\n== targets (throughput; era, listen and Redis; telemetry; Fastify; Redis Cluster)\n');
  for (const t of targets) {
    const threshold = t.informational ? '' : ` (target ${t.threshold})`;
    log(`${verdict(t).padEnd(4)}  ${t.text}: ${t.detail ?? t.value ?? 'n/a'}${threshold}`);
  }
  log('\n== targets (streams: fan-out, notifying calls, SSE writes)\n');
  for (const t of streamTargets)
    log(`${verdict(t).padEnd(4)}  ${t.text}: ${t.detail ?? 'n/a'} (target ${t.threshold})`);
  for (const profile of profiles) log(`\n${formatProfile(profile)}`);

  const report = {
    meta,
    config,
    echo,
    fanout,
    memory,
    resources,
    era,
    listen,
    redis,
    tasks,
    telemetry,
    fastify,
    redisCluster,
    table: rows,
    peerTables,
    targets,
    streamTargets,
    profiles,
    errors: totalErrors,
  };
  const base = join(config.resultsDir, `bench-${stamp}`);
  const json = JSON.stringify(report, null, 2);
  writeFileSync(`${base}.json`, json);
  writeFileSync(join(config.resultsDir, 'latest.json'), json);
  const svg = buildSvg(meta, echo, fanout, memory, resources);
  writeFileSync(`${base}.svg`, svg);
  const png = svgToPng(svg);
  writeFileSync(`${base}.png`, png);
  writeFileSync(join(config.resultsDir, 'latest.png'), png);
  const snippet = [
    markdown(meta, rows, targets),
    targetsMarkdown('Stream target', streamTargets),
    ...peerTables.map(peerMarkdown),
  ].join('\n\n');
  writeFileSync(`${base}.md`, snippet);
  log(`\n== written: ${base}.json, .svg, .png, .md (and latest.json, latest.png)`);
  log(`\n== README snippet\n\n${snippet}\n`);
  log(`total ${meta.totalSeconds.toFixed(0)} s; ${totalErrors} errors`);
  return totalErrors === 0 ? 0 : 1;
}

const watchdog = setTimeout(
  () => {
    console.error('bench: gave up after 30 minutes');
    process.exit(2);
  },
  30 * 60 * 1_000,
);
watchdog.unref();

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
