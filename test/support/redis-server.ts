/**
 * Redis for tests. `REDIS_URL` when set (a shared server: tests isolate themselves with a key
 * prefix of their own); otherwise, or when a test needs to pause, restart or kill it, a
 * `redis-server` of its own on a free 127.0.0.1 port, without persistence, stopped afterwards.
 * Nothing depends on a server someone started by hand.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { stopChild } from './child-process.mjs';

export interface TestRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** True when this process started the server (it may then be paused and restarted). */
  readonly owned: boolean;
  /** A key prefix no other test uses. */
  prefix(): string;
  /** Runs one command on a short-lived connection (CLIENT PAUSE, MEMORY USAGE, ...). */
  command(...args: (string | number)[]): Promise<unknown>;
  /** Kills the server and starts an empty one on the same port (owned servers only). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `redis-server` on `port` and resolves once it accepts connections. */
function spawnRedis(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    // Probing stops once the start succeeded or failed: a probe loop left running on a dead port
    // would keep the test run alive.
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`redis-server on port ${port} did not start within 10 s: ${output}`));
    }, 10_000);
    child.once('error', (error) => {
      settled = true;
      clearTimeout(timer);
      reject(
        new Error(
          `cannot run redis-server (${error.message}): install it (Debian: apt-get install redis-server) or set REDIS_URL`,
        ),
      );
    });
    child.once('exit', (code) => {
      settled = true;
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output}`));
    });
    const probe = async (): Promise<void> => {
      if (settled) return;
      const client = new Redis({
        port,
        host: '127.0.0.1',
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.ping();
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(child);
      } catch {
        setTimeout(() => void probe(), 20);
      } finally {
        client.disconnect();
      }
    };
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void probe();
  });
}

/**
 * Redis for a test file: `REDIS_URL` unless `own` is asked for or it is unset, then a server of
 * its own.
 */
export async function startRedis({ own = false }: { own?: boolean } = {}): Promise<TestRedis> {
  const shared = process.env.REDIS_URL?.trim();
  const prefix = () => `t-${randomBytes(5).toString('hex')}:`;
  const command = async (url: string, args: (string | number)[]) => {
    const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      return await client.call(String(args[0]), ...args.slice(1).map(String));
    } finally {
      client.disconnect();
    }
  };
  if (shared && !own) {
    return {
      url: shared,
      owned: false,
      prefix,
      command: (...args) => command(shared, args),
      restart: () => Promise.reject(new Error('REDIS_URL names a shared server: a test cannot restart it')),
      stop: async () => undefined,
    };
  }
  const port = await freePort();
  let child = await spawnRedis(port);
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    owned: true,
    prefix,
    command: (...args) => command(url, args),
    async restart() {
      await stopChild(child, 'SIGKILL');
      child = await spawnRedis(port);
    },
    stop: () => stopChild(child),
  };
}
