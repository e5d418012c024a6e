/**
 * The bench's own `redis-server` (from PATH) on a free port of 127.0.0.1, no persistence; never
 * one started by hand. Stopped (SIGTERM, then SIGKILL) by `stop()`. Also the bench's view of it:
 * INFO commandstats, used memory, MEMORY USAGE of keys.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { countRoundTrips } from './redis-monitor.js';

/**
 * What the Redis phases need of a Redis deployment (one `redis-server`, or a cluster): the
 * environment that points a library instance at it, its command counts and CPU, a flush.
 */
export interface BenchRedis {
  /** Environment for a `library-redis` fixture on this deployment. */
  instanceEnv(): Record<string, string>;
  /** Calls per command so far (INFO commandstats), without the bench's own. */
  commandCalls(): Promise<Record<string, number>>;
  /** CPU seconds the deployment has used so far. */
  cpuSeconds(): Promise<number>;
  /** What `during` sent Redis, in round trips per command (MONITOR; see redis-monitor.ts). */
  roundTrips<T>(during: () => Promise<T>): Promise<{ result: T; trips: Record<string, number> }>;
  flush(): Promise<void>;
}

/** A port the OS says is free right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export class RedisProcess implements BenchRedis {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly client: Redis,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  instanceEnv(): Record<string, string> {
    return { REDIS_URL: this.url };
  }

  static async start(timeoutMs = 10_000): Promise<RedisProcess> {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxclients', '20000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + String(chunk)).slice(-4_000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + String(chunk)).slice(-4_000)));
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`))),
    );
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined);
      try {
        await Promise.race([client.connect().then(() => client.ping()), exited]);
        return new RedisProcess(child, port, client);
      } catch (error) {
        client.disconnect();
        if (child.exitCode !== null || Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`redis-server did not answer on ${port}: ${(error as Error).message}\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async version(): Promise<string | undefined> {
    return /redis_version:(\S+)/.exec(await this.client.info('server'))?.[1];
  }

  /** Calls per command so far (INFO commandstats), without `info` itself. */
  async commandCalls(): Promise<Record<string, number>> {
    const text = await this.client.info('commandstats');
    const calls: Record<string, number> = {};
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (match[1] !== 'info') calls[match[1]] = Number(match[2]);
    }
    return calls;
  }

  roundTrips<T>(during: () => Promise<T>): Promise<{ result: T; trips: Record<string, number> }> {
    return countRoundTrips([this.client], during);
  }

  /** CPU seconds the Redis server has used so far (INFO cpu: user + system, main thread and others). */
  async cpuSeconds(): Promise<number> {
    const text = await this.client.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
    return field('used_cpu_user') + field('used_cpu_sys');
  }

  async usedMemory(): Promise<number> {
    return Number(/used_memory:(\d+)/.exec(await this.client.info('memory'))?.[1] ?? Number.NaN);
  }

  /** Sum of MEMORY USAGE over the keys matching `pattern` (SCAN, never KEYS), and their count. */
  async memoryOfKeys(pattern: string): Promise<{ bytes: number; keys: number }> {
    let cursor = '0';
    let bytes = 0;
    let keys = 0;
    do {
      const [next, batch] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) {
        bytes += Number((await this.client.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
        keys++;
      }
    } while (cursor !== '0');
    return { bytes, keys };
  }

  async flush(): Promise<void> {
    await this.client.flushall();
  }

  async stop(): Promise<void> {
    this.client.disconnect();
    if (this.child.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }
}

/** `after - before` per command, zeros left out. */
export function callsDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after)) {
    const d = calls - (before[name] ?? 0);
    if (d > 0) delta[name] = d;
  }
  return delta;
}
