/**
 * A smoke of the benchmark harness, not a benchmark (`BENCH_SMOKE=1`: every server kind, the
 * library with both mounts, through every phase (the era, listen and Redis phases too, with the
 * SDK v2, tmcp and the bench's own redis-server, the telemetry phase with its OTLP receiver, the
 * library on Nest's Fastify platform and the Redis backend on the bench's own Redis Cluster),
 * with a load of a known tiny size: 32 requests
 * per load point, N=10 sessions): it completes, every response and notification was correct,
 * and the report (JSON, SVG, PNG, console table) is produced. No timing is asserted: timing
 * stays out of the test suite. What remains of its run time is starting the server
 * processes, one per server and phase.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = process.cwd();
const SERVERS = ['library', 'sdk', 'nest-floor', 'node-floor', 'library-direct', 'tmcp'];

function runBench(resultsDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'test/bench/results/.build/test/bench/run.js')], {
      cwd: ROOT,
      // The Fastify phase's fan-out pairs take a number of rounds of their own (3, against the
      // fan-out phase's 2 in the smoke): each run must time the rounds its caller asked for.
      env: { ...process.env, BENCH_SMOKE: '1', BENCH_RESULTS_DIR: resultsDir, BENCH_FASTIFY_FANOUT_ROUNDS: '3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 390_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('npm run bench, smoke mode', () => {
  let resultsDir: string;

  beforeAll(() => {
    resultsDir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    // Builds test/bench/results/.build when it is missing or stale (plain tsc).
    execFileSync(process.execPath, [join(ROOT, 'test/bench/build.mjs')], { cwd: ROOT, stdio: 'pipe' });
  }, 120_000);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('runs every server through every phase with every response correct', async () => {
    const { code, output } = await runBench(resultsDir);
    if (code !== 0) throw new Error(`the bench exited with ${code}:\n${output.slice(-4_000)}`);

    const report = JSON.parse(readFileSync(join(resultsDir, 'latest.json'), 'utf8'));
    for (const section of ['meta', 'config', 'echo', 'fanout', 'memory', 'resources', 'table', 'targets', 'profiles']) {
      expect(report).toHaveProperty(section);
    }
    expect(report.errors).toBe(0);
    expect(report.meta.smoke).toBe(true);
    // The load is counted, not timed: every load point sent exactly this many requests.
    const requests = report.config.requestsPerPoint;
    expect(requests).toBe(32);

    expect(report.echo.map((e: any) => e.server)).toEqual(SERVERS);
    for (const echo of report.echo) {
      expect(echo.error).toBeUndefined();
      expect(echo.points.length).toBeGreaterThan(0);
      expect(echo.points.map((point: any) => point.concurrency)).toEqual([1, 16]);
      for (const point of [echo.warmup, ...echo.points]) {
        expect(point.errors).toBe(0);
        expect(point.ok).toBe(requests);
      }
    }

    expect(report.fanout.map((f: any) => f.server)).toEqual(SERVERS);
    for (const fanout of report.fanout) {
      expect(fanout).toMatchObject({
        n: 10,
        errors: 0,
        missing: 0,
        duplicates: 0,
        leaked: 0,
        unexpected: 0,
        barrierOk: true,
      });
      expect(fanout.delivered).toBe(10);
      expect(fanout.reached).toBe(10);
      expect(fanout.notifyNone).toHaveLength(2);
      // The notifying call's answer and a plain echo's, both timed in the fan-out phase.
      expect(fanout.bumpAnswerMedianMs).toBeGreaterThan(0);
      expect(fanout.echoMs).toBeGreaterThan(0);
    }

    expect(report.memory.map((m: any) => m.server)).toEqual(SERVERS);
    for (const memory of report.memory) {
      expect(memory.errors).toBe(0);
      expect(memory.points).toHaveLength(1);
      expect(memory.points[0]).toMatchObject({ n: 10, sessionsReported: 10, sessionsAfterDelete: 0 });
    }

    expect(report.resources.map((r: any) => r.server)).toEqual(['library', 'sdk', 'library-direct']);
    for (const resources of report.resources) {
      expect(resources.errors).toBe(0);
      expect(resources.walk).toMatchObject({ items: 101, duplicates: 0, missing: 0 });
      expect(resources.read).toMatchObject({ ok: requests, errors: 0 });
    }

    expect(report.table.length).toBeGreaterThan(10);
    const echoRow = report.table.find((r: any) => r.metric === 'c=16 throughput');
    for (const column of ['1:2', '1:3', '1:4', '1:T', 'D:2', 'D:4', 'D:T'])
      expect(echoRow.ratios[column]).toBeGreaterThan(0);
    expect(report.targets.find((t: any) => t.id === 'correctness')).toMatchObject({ pass: true });
    for (const target of report.targets) expect([true, false, null]).toContain(target.pass);
    // Every throughput and fan-out target once per mount, plus the direct mount's ratio to node:http.
    const ids = report.targets.map((t: any) => t.id);
    for (const id of [
      'echo-c16-vs-sdk',
      'echo-c16-vs-nest',
      'fanout-1000-vs-sdk',
      'fanout-linear',
      'notify-no-subscriber',
    ])
      expect(ids).toEqual(expect.arrayContaining([id, `${id}-direct`]));
    expect(report.targets.find((t: any) => t.id === 'echo-c16-direct-vs-node')).toMatchObject({
      threshold: '>= 0.55x',
    });
    expect(report.targets.find((t: any) => t.id === 'echo-c16-direct-vs-node').value).toBeGreaterThan(0);

    const png = readFileSync(join(resultsDir, 'latest.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(existsSync(join(resultsDir, `bench-${report.meta.date.replace(/[:.]/g, '-')}.svg`))).toBe(true);
    expect(output).toContain('| Metric |');

    // The era phase: both eras on the library (both mounts), the SDK v2 and tmcp; the floor once.
    expect(report.era.map((e: any) => `${e.server} ${e.era}`)).toEqual([
      'library legacy',
      'library modern',
      'library-direct legacy',
      'library-direct modern',
      'sdk-v2 legacy',
      'sdk-v2 modern',
      'tmcp legacy',
      'tmcp modern',
      'node-floor legacy',
    ]);
    for (const era of report.era) {
      expect(era.error).toBeUndefined();
      for (const point of [era.warmup, ...era.points]) expect(point).toMatchObject({ ok: requests, errors: 0 });
      for (const point of era.points) expect(point.cpuUsPerRequest).toBeGreaterThan(0);
    }
    expect(report.listen.map((l: any) => l.server)).toEqual(['library', 'library-direct', 'sdk-v2']);
    for (const listen of report.listen) {
      expect(listen).toMatchObject({ n: 10, errors: 0, delivered: 10, missing: 0, duplicates: 0, unexpected: 0 });
    }
    expect(report.redis.errors).toBe(0);
    expect(report.redis.fanout).toHaveLength(1);
    expect(report.redis.fanout[0]).toMatchObject({ n: 10, instances: 3, errors: 0, delivered: 10, missing: 0 });
    expect(report.redis.fanout[0].commandsPerNotification).toBeGreaterThan(0);
    // The single-instance reference of the Redis fan-out: one in-memory process, same client.
    expect(report.redis.singleInstance).toMatchObject({
      n: 10,
      instances: 1,
      backend: 'memory',
      errors: 0,
      delivered: 10,
      missing: 0,
    });
    // Modern listens across the instances, and their one-process reference.
    expect(report.redis.listenFanout).toHaveLength(1);
    expect(report.redis.listenFanout[0]).toMatchObject({
      n: 10,
      instances: 3,
      era: 'modern',
      errors: 0,
      delivered: 10,
      missing: 0,
      duplicates: 0,
      unexpected: 0,
    });
    expect(report.redis.listenFanout[0].commandsPerNotification).toBeGreaterThan(0);
    expect(report.redis.listenSingleInstance).toMatchObject({
      n: 10,
      instances: 1,
      backend: 'memory',
      era: 'modern',
      errors: 0,
      delivered: 10,
    });
    expect(report.redis.echo.redis).toMatchObject({ ok: requests, errors: 0 });
    expect(report.redis.echo).toMatchObject({ errors: 0, rounds: [{ memoryRps: expect.any(Number) }] });
    expect(report.redis.memory.sessions).toBe(10);
    for (const id of [
      'modern-c16-vs-sdk-v2-direct',
      'modern-c16-vs-node-direct',
      'modern-cpu-vs-legacy',
      'modern-cpu-vs-legacy-direct',
      'listen-1000-vs-sdk-v2',
      'listen-linear-direct',
      'redis-echo-c16-vs-memory',
      'redis-commands-constant',
      'redis-fanout-vs-single-instance',
      'redis-commands-constant-listen',
      'redis-fanout-vs-single-instance-listen',
      'tasks-poll-round-trips',
    ])
      expect(ids).toContain(id);
    expect(output).toContain('| tools/call echo by protocol era |');
    // The tasks phase: created, polled at their interval across the instances, cancelled.
    expect(report.tasks).toMatchObject({ n: 10, instances: 3, errors: 0 });
    expect(report.tasks.polls).toBeGreaterThanOrEqual(10);
    expect(report.tasks.getScriptsPerPoll).toBe(1);
    expect(report.tasks.createdPerSecond).toBeGreaterThan(0);
    expect(output).toContain('| Tasks: 10 on 3 instances sharing Redis');

    // The telemetry phase: per mount, off, api and sdk taking turns; the sdk server's spans
    // reached the bench's OTLP receiver.
    expect(report.telemetry).toMatchObject({ rounds: 2, concurrency: 16, errors: 0 });
    expect(report.telemetry.mounts.map((m: any) => m.server)).toEqual(['library', 'library-direct']);
    for (const mount of report.telemetry.mounts) {
      expect(mount.error).toBeUndefined();
      expect(mount.errors).toBe(0);
      expect(mount.rounds).toHaveLength(2);
      expect(mount.rounds.map((round: any) => round.order)).toEqual([
        ['off', 'api', 'sdk'],
        ['api', 'sdk', 'off'],
      ]);
      for (const round of mount.rounds) {
        for (const mode of ['off', 'api', 'sdk']) {
          expect(round.points[mode]).toMatchObject({ ok: requests, errors: 0 });
          expect(round.points[mode].serverCpuUsPerRequest).toBeGreaterThan(0);
        }
      }
      for (const mode of ['off', 'api', 'sdk']) expect(mount.warmup[mode]).toMatchObject({ ok: requests, errors: 0 });
      expect(mount.apiVsOff.rounds).toHaveLength(2);
      expect(mount.sdkVsOff.medianOfRounds).toBeGreaterThan(0);
      // Every request of the sdk server made a span (plus initialize and its notification).
      expect(mount.sdkRequests).toBe(requests * 3);
      expect(mount.exportsTotal.traces.requests).toBeGreaterThan(0);
      expect(mount.exportsTotal.traces.spans).toBeGreaterThanOrEqual(mount.sdkRequests);
      expect(mount.exportsTotal.metrics.requests).toBeGreaterThan(0);
      expect(mount.exportsTotal.rejected).toBe(0);
    }
    for (const id of [
      'telemetry-api-vs-off',
      'telemetry-api-vs-off-direct',
      'telemetry-sdk-vs-off',
      'telemetry-sdk-vs-off-direct',
    ])
      expect(ids).toContain(id);
    expect(output).toContain('| Telemetry overhead: tools/call echo c=16, 2 interleaved rounds');

    // The stream targets: their own list in the JSON and their own table in the snippet.
    const streamIds = report.streamTargets.map((t: any) => t.id);
    for (const id of [
      'stream-fanout-1000-vs-tmcp',
      'stream-fanout-1000-vs-nest-floor',
      'stream-fanout-linear',
      'stream-bump-vs-echo-10',
      'stream-memory-idle-10',
    ])
      expect(streamIds).toEqual(expect.arrayContaining([id, `${id}-direct`]));
    for (const id of [
      'stream-echo-c16-vs-nest-floor',
      'stream-echo-c16-vs-node-floor-direct',
      'stream-echo-c16-vs-tmcp-direct',
    ])
      expect(streamIds).toContain(id);
    for (const target of report.streamTargets) expect([true, false, null]).toContain(target.pass);
    expect(report.streamTargets.find((t: any) => t.id === 'stream-bump-vs-echo-10').value).toBeGreaterThan(0);
    expect(output).toContain('| Stream target |');

    // The Fastify phase: both mounts on Fastify and on Express, the Nest-on-Fastify floor and the
    // official SDK v2 on Fastify (a peer, sessionless), taking turns; fan-out on each mount on
    // both platforms; subscriptions/listen fan-out on the MCP servers on Fastify.
    expect(report.fastify).toMatchObject({ errors: 0 });
    for (const kind of [
      'nest-floor-fastify',
      'library-fastify',
      'library',
      'library-direct-fastify',
      'library-direct',
      'sdk-v2-fastify',
    ])
      expect(report.fastify.echo.best[kind]).toMatchObject({ ok: requests, errors: 0 });
    expect(report.fastify.fanout.map((f: any) => f.server)).toEqual([
      'library-fastify',
      'library',
      'library-direct-fastify',
      'library-direct',
    ]);
    for (const run of report.fastify.fanout) {
      expect(run).toMatchObject({ n: 10, errors: 0, delivered: 10, duplicates: 0, leaked: 0, rounds: 3 });
      expect(run.roundsMs).toHaveLength(3);
      expect(run.cpuPerBumpUs).toBeGreaterThan(0);
    }
    expect(report.fastify.listen.map((l: any) => l.server)).toEqual([
      'library-fastify',
      'library-direct-fastify',
      'sdk-v2-fastify',
    ]);
    for (const run of report.fastify.listen) {
      expect(run).toMatchObject({ n: 10, errors: 0, delivered: 10, missing: 0, duplicates: 0 });
      expect(run.serverCpuMs).toBeGreaterThan(0);
    }
    for (const id of [
      'fastify-echo-c16-vs-floor',
      'fastify-echo-c16-direct-vs-express',
      'fastify-fanout-vs-express',
      'fastify-fanout-vs-express-direct',
      'fastify-fanout-cpu-vs-express',
      'fastify-fanout-cpu-vs-express-direct',
      'fastify-cpu-controller-vs-floor',
      'fastify-cpu-direct-vs-floor',
      'fastify-cpu-controller-vs-direct',
      'fastify-echo-c16-vs-sdk',
      'fastify-echo-c16-vs-sdk-direct',
      'fastify-cpu-vs-sdk',
      'fastify-cpu-vs-sdk-direct',
      'fastify-listen-vs-sdk',
      'fastify-listen-vs-sdk-direct',
    ])
      expect(ids).toContain(id);
    for (const kind of ['nest-floor-fastify', 'library-fastify', 'library-direct-fastify', 'sdk-v2-fastify'])
      expect(report.fastify.echo.cpuMedian[kind]).toBeGreaterThan(0);
    expect(output).toContain('| Nest on Fastify vs Express |');
    expect(output).toContain('| official SDK v2 on Fastify |');

    // The Redis Cluster phase: the same fan-out and tools/call on one node and on the cluster,
    // each reporting its Redis commands.
    expect(report.redisCluster).toMatchObject({ errors: 0 });
    expect(report.redisCluster.fanout.map((f: any) => f.topology)).toEqual(['single', 'cluster']);
    for (const run of report.redisCluster.fanout) {
      expect(run).toMatchObject({ n: 10, instances: 3, errors: 0, delivered: 10, missing: 0 });
      // Two runs per deployment, taking turns, the same warm-up rounds dropped in each.
      expect(run).toMatchObject({ runs: 2, warmupRounds: 2 });
      expect(run.roundsMs).toHaveLength(run.rounds);
      expect(run.commandsPerNotification).toBeGreaterThan(0);
      expect(run.serverCpuMs).toBeGreaterThan(0);
    }
    for (const topology of ['single', 'cluster']) {
      expect(report.redisCluster.echo[topology]).toMatchObject({ ok: requests, errors: 0 });
      // Every request reached Redis (a session lookup), none more than once.
      const trips = report.redisCluster.echo.roundTrips[topology];
      expect(trips.c1).toBeGreaterThan(0);
      expect(trips.c1).toBeLessThanOrEqual(1.5);
      expect(trips.c16).toBeGreaterThan(0);
    }
    for (const id of [
      'redis-cluster-echo-c16-vs-node',
      'redis-cluster-fanout-vs-node',
      'redis-cluster-fanout-cpu-vs-node',
      'redis-cluster-round-trips-per-request',
      'redis-cluster-commands-per-notification',
    ])
      expect(ids).toContain(id);
    expect(output).toContain('| Redis backend: one node vs a cluster of three masters');
  }, 420_000);
});
