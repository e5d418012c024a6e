/**
 * Tasks (the tasks extension, MCP 2026-07-28) on `BENCH_REDIS_INSTANCES` (3) library fixtures
 * sharing the bench's own `redis-server` (direct mount, `BENCH_BACKEND=redis`):
 *
 * - **Creation**: `BENCH_TASKS_N` (1,000) calls of the `job` tool (a task at once, through
 *   `ctx.becomeTask()`, working until cancelled), 64 at a time, spread over the instances in
 *   turn: tasks created per second, beside as many plain modern `tools/call echo` at the same
 *   concurrency on the same instances.
 * - **Polling**: every task is polled with `tasks/get` at its `pollIntervalMs` for
 *   `BENCH_TASKS_POLL_S` seconds, each poll on the next instance (never the one before), the
 *   first polls spread over one interval. Every answer must be the task, `working`. Latency
 *   p50/p99 at the client. Redis round trips per poll: the commands Redis ran for a client (not
 *   from inside a Lua script), as MONITOR shows them, during the polling window, less those of
 *   an idle window as long just before it (the instances' heartbeats and orphan checks), per
 *   poll; and the commands the scripts ran inside Redis, per poll, beside it.
 * - Then every task is cancelled (and must be acknowledged).
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { preludeFor } from '../../../libs/mcp-redis/src/lua/prelude.lua.js';
import { TASK_GET } from '../../../libs/mcp-redis/src/lua/tasks.lua.js';

/** The task read script as the backend's script registry sends it (its shared prelude first). */
const TASK_GET_SCRIPT = preludeFor(false) + TASK_GET;
import { BenchHttp, inPool } from '../client/http.js';
import { percentile } from '../client/load.js';
import { modernHeaders, MODERN_VERSION } from '../client/modern.js';
import { RedisProcess } from '../client/redis-server.js';
import { ServerProcess } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { TasksResult } from '../types.js';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CONCURRENCY = 64;

const meta = (extension: boolean): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': extension ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
});

/** Commands Redis ran, counted as MONITOR shows them: by clients, and by scripts (`lua`). */
class CommandWatch {
  clients = 0;
  scripts = 0;
  /** Runs of the task store's `tasks/get` script (EVALSHA, or EVAL). */
  gets = 0;
  private readonly getSha = createHash('sha1').update(TASK_GET_SCRIPT).digest('hex');

  private barrier?: { token: string; seen: () => void };

  private constructor(
    private readonly connection: Redis,
    /** The MONITOR connection (ioredis opens one of its own for it). */
    private readonly monitor: Redis,
    private readonly control: Redis,
  ) {}

  static async start(url: string): Promise<CommandWatch> {
    const connection = new Redis(url);
    const monitor = await connection.monitor();
    const watch = new CommandWatch(connection, monitor, new Redis(url));
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args[0]?.toLowerCase() === 'echo' && args[1] === watch.barrier?.token) {
        watch.barrier.seen();
        return;
      }
      if (source === 'lua') watch.scripts++;
      else watch.clients++;
      const command = args[0]?.toLowerCase();
      if ((command === 'evalsha' && args[1] === watch.getSha) || (command === 'eval' && args[1] === TASK_GET_SCRIPT)) {
        watch.gets++;
      }
    });
    return watch;
  }

  /**
   * The counts once MONITOR showed everything Redis ran before this call (its lines arrive after
   * the commands' answers): an ECHO of a fresh token is the barrier, and is not counted.
   */
  async snapshot() {
    const token = `barrier-${Math.random().toString(36).slice(2)}`;
    const seen = new Promise<void>((resolve) => (this.barrier = { token, seen: resolve }));
    await this.control.echo(token);
    await seen;
    return { clients: this.clients, scripts: this.scripts, gets: this.gets };
  }

  stop(): void {
    // All three: a connection left open retries forever once the phase's Redis is gone.
    this.connection.disconnect();
    this.monitor.disconnect();
    this.control.disconnect();
  }
}

export async function runTasks(config: BenchConfig, log: (line: string) => void): Promise<TasksResult> {
  const n = config.tasksN;
  const result: TasksResult = { n, instances: config.redisInstances, errors: 0 };
  let redis: RedisProcess | undefined;
  let servers: ServerProcess[] = [];
  let clients: BenchHttp[] = [];
  let watch: CommandWatch | undefined;
  let stage = 'starting';
  try {
    redis = await RedisProcess.start();
    servers = await Promise.all(
      Array.from({ length: config.redisInstances }, (_, i) =>
        ServerProcess.start('library-redis', {
          env: { REDIS_URL: redis!.url, MCP_INSTANCE_ID: `bench-tasks-${i + 1}` },
          startTimeoutMs: 60_000,
        }),
      ),
    );
    clients = servers.map((server) => new BenchHttp(server.endpoint, CONCURRENCY));
    let id = 0;
    const call = async (instance: number, method: string, params: Record<string, unknown>, name?: string) => {
      const answer = await clients[instance % clients.length].request(
        'POST',
        { jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta(true) } },
        { accept: 'application/json', ...modernHeaders(method, name) },
      );
      if (answer.status !== 200 || !answer.json?.result) {
        throw new Error(`${method}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
      }
      return answer.json.result as Record<string, any>;
    };

    stage = 'warming up';
    await inPool(CONCURRENCY, CONCURRENCY, async (i) => {
      await call(i, 'tools/call', { name: 'echo', arguments: { text: `warm ${i}` } }, 'echo');
    });

    stage = `calling echo ${n} times`;
    let started = performance.now();
    await inPool(n, CONCURRENCY, async (i) => {
      const echoed = await call(i, 'tools/call', { name: 'echo', arguments: { text: `e${i}` } }, 'echo');
      if (echoed.content?.[0]?.text !== `e${i}`) throw new Error(`echo ${i} answered ${JSON.stringify(echoed)}`);
    });
    result.echoPerSecond = n / ((performance.now() - started) / 1_000);

    stage = `creating ${n} tasks`;
    const taskIds: string[] = new Array(n);
    started = performance.now();
    await inPool(n, CONCURRENCY, async (i) => {
      const created = await call(i, 'tools/call', { name: 'job', arguments: { label: `job ${i}` } }, 'job');
      if (created.resultType !== 'task' || typeof created.taskId !== 'string') {
        throw new Error(`job ${i} answered ${JSON.stringify(created)}`);
      }
      taskIds[i] = created.taskId;
      result.pollIntervalMs = created.pollIntervalMs as number;
    });
    result.createdPerSecond = n / ((performance.now() - started) / 1_000);
    log(
      `  ${n} tasks on ${servers.length} instances: ${result.createdPerSecond.toFixed(0)} created/s (plain tools/call echo: ${result.echoPerSecond.toFixed(0)}/s), poll interval ${result.pollIntervalMs} ms`,
    );

    // One poll of each task first, on every instance: each loads the script into Redis's cache
    // (a first EVALSHA is answered NOSCRIPT, then sent as EVAL: two round trips once).
    stage = 'polling each task once';
    await inPool(n, CONCURRENCY, async (i) => {
      await call(i, 'tasks/get', { taskId: taskIds[i] }, taskIds[i]);
    });

    const windowMs = config.tasksPollS * 1_000;
    stage = 'watching Redis while idle';
    watch = await CommandWatch.start(redis.url);
    const idleStart = await watch.snapshot();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const idle = await watch.snapshot();

    stage = `polling ${n} tasks for ${config.tasksPollS} s`;
    const latencies: number[] = [];
    const interval = result.pollIntervalMs ?? 1_000;
    const pollStart = await watch.snapshot();
    const deadline = performance.now() + windowMs;
    await Promise.all(
      taskIds.map(async (taskId, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i / n) * interval));
        for (let k = 0; performance.now() < deadline; k++) {
          const next = performance.now() + interval;
          const sent = performance.now();
          const task = await call(i + k, 'tasks/get', { taskId }, taskId);
          latencies.push(performance.now() - sent);
          if (task.taskId !== taskId || task.status !== 'working') {
            throw new Error(`poll of ${taskId} answered ${JSON.stringify(task)}`);
          }
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
        }
      }),
    );
    const polled = await watch.snapshot();
    const polls = latencies.length;
    latencies.sort((a, b) => a - b);
    result.polls = polls;
    result.pollP50Ms = percentile(latencies, 50);
    result.pollP99Ms = percentile(latencies, 99);
    const background = idle.clients - idleStart.clients;
    result.roundTripsPerPoll = (polled.clients - pollStart.clients - background) / polls;
    result.getScriptsPerPoll = (polled.gets - pollStart.gets) / polls;
    result.scriptCommandsPerPoll = (polled.scripts - pollStart.scripts - (idle.scripts - idleStart.scripts)) / polls;
    log(
      `  ${polls} polls at the interval over ${config.tasksPollS} s: p50 ${result.pollP50Ms.toFixed(2)} ms, p99 ${result.pollP99Ms.toFixed(2)} ms; Redis round trips per poll ${result.roundTripsPerPoll.toFixed(3)} (task scripts per poll ${result.getScriptsPerPoll.toFixed(3)}; idle window: ${background} client commands), commands run inside the script per poll ${result.scriptCommandsPerPoll.toFixed(1)}`,
    );

    stage = `cancelling ${n} tasks`;
    await inPool(n, CONCURRENCY, async (i) => {
      const ack = await call(i + 1, 'tasks/cancel', { taskId: taskIds[i] }, taskIds[i]);
      if (ack.resultType !== 'complete') throw new Error(`cancel of ${taskIds[i]} answered ${JSON.stringify(ack)}`);
    });
  } catch (error) {
    result.error = `${(error as Error).message} (while ${stage})`;
    result.errors++;
    log(`  tasks: FAILED ${result.error}\n${servers.map((s) => s.log).join('\n')}`);
  } finally {
    watch?.stop();
    for (const client of clients) client.close();
    await Promise.all(servers.map((server) => server.stop()));
    await redis?.stop();
  }
  return result;
}
