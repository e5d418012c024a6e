/**
 * Starts one server under test in its own child process (`node --expose-gc <entry>` on
 * 127.0.0.1, port chosen by the OS) and talks to it over the IPC channel of child-ipc.ts.
 * `library-direct` is the library fixture again, started with `BENCH_MOUNT=direct`. A library
 * fixture must report the mount and the telemetry mode (`BENCH_TELEMETRY`, `api` unless the
 * environment says otherwise) it was asked for, and the Nest platform (`BENCH_PLATFORM`,
 * `express` unless a `-fastify` kind or the environment says otherwise), or it is refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type ServerKind =
  | 'library'
  | 'sdk'
  | 'nest-floor'
  | 'node-floor'
  | 'library-direct'
  | 'sdk-v2'
  | 'tmcp'
  | 'library-redis'
  | 'library-fastify'
  | 'library-direct-fastify'
  | 'nest-floor-fastify'
  | 'sdk-v2-fastify';

/**
 * Servers only the Fastify phase starts (not columns of the main table, whose Express rows stay
 * as they were): the library's two mounts on Nest's Fastify platform, the bare Nest-on-Fastify
 * floor and the official SDK v2 on its own Fastify app (`@modelcontextprotocol/fastify`).
 */
export const FASTIFY_KINDS: readonly ServerKind[] = [
  'library-fastify',
  'library-direct-fastify',
  'nest-floor-fastify',
  'sdk-v2-fastify',
];

/**
 * Servers whose 2025-era (legacy) traffic has no session: the official SDK v2's stateless
 * fallback answers a `tools/call` without `initialize` and has no GET stream, so the session
 * fan-out (resources/subscribe + GET streams) cannot run on them.
 */
export const SESSIONLESS_LEGACY_KINDS: readonly ServerKind[] = ['sdk-v2', 'sdk-v2-fastify'];

/**
 * Servers only the era, listen and Redis phases start (not columns of the main table): the
 * official SDK v2 (`createMcpHandler`) and the library's direct mount on the Redis backend
 * (`REDIS_URL` given at start). tmcp is in both: a column of the main table and a server of the
 * era phase.
 */
export const PEER_KINDS: readonly ServerKind[] = ['sdk-v2', 'library-redis'];

/**
 * In run and column order; the numbers of the ratio columns (1:2, D:4, ...) follow it (D = 5,
 * T = tmcp).
 */
export const SERVER_KINDS: readonly ServerKind[] = [
  'library',
  'sdk',
  'nest-floor',
  'node-floor',
  'library-direct',
  'tmcp',
];

/** The library's two mounts of its Streamable HTTP endpoint. */
export const LIBRARY_KINDS: readonly ServerKind[] = ['library', 'library-direct'];

export const SERVER_LABELS: Record<ServerKind, string> = {
  library: 'this library',
  sdk: 'official SDK',
  'nest-floor': 'bare Nest',
  'node-floor': 'bare node:http',
  'library-direct': 'this library, direct mount',
  'sdk-v2': 'official SDK v2',
  tmcp: 'tmcp',
  'library-redis': 'this library, direct mount, Redis',
  'library-fastify': 'this library on Fastify',
  'library-direct-fastify': 'this library, direct mount, on Fastify',
  'nest-floor-fastify': 'bare Nest on Fastify',
  'sdk-v2-fastify': 'official SDK v2 on Fastify',
};

/** How a library kind's endpoint is mounted (for target texts). */
export const MOUNT_LABELS: Partial<Record<ServerKind, string>> = {
  library: 'controller mount',
  'library-direct': 'direct mount',
  'library-redis': 'direct mount, Redis backend',
  'library-fastify': 'controller mount on Fastify',
  'library-direct-fastify': 'direct mount on Fastify',
};

const ENTRIES: Record<ServerKind, string> = {
  library: 'library-fixture.js',
  sdk: 'sdk-server.js',
  'nest-floor': 'nest-floor.js',
  'node-floor': 'node-floor.js',
  'library-direct': 'library-fixture.js',
  'sdk-v2': 'sdk-v2-server.js',
  tmcp: 'tmcp-server.js',
  'library-redis': 'library-fixture.js',
  'library-fastify': 'library-fixture.js',
  'library-direct-fastify': 'library-fixture.js',
  'nest-floor-fastify': 'nest-floor-fastify.js',
  'sdk-v2-fastify': 'sdk-fastify-server.js',
};

/** Environment that makes a kind out of a shared entry. */
const KIND_ENV: Partial<Record<ServerKind, Record<string, string>>> = {
  library: { BENCH_MOUNT: 'controller', BENCH_PLATFORM: 'express' },
  'library-direct': { BENCH_MOUNT: 'direct', BENCH_PLATFORM: 'express' },
  'library-redis': { BENCH_MOUNT: 'direct', BENCH_BACKEND: 'redis', BENCH_PLATFORM: 'express' },
  'library-fastify': { BENCH_MOUNT: 'controller', BENCH_PLATFORM: 'fastify' },
  'library-direct-fastify': { BENCH_MOUNT: 'direct', BENCH_PLATFORM: 'fastify' },
};

export const entryOf = (kind: ServerKind): string =>
  fileURLToPath(new URL(`../servers/${ENTRIES[kind]}`, import.meta.url));

export interface StartOptions {
  env?: Record<string, string>;
  /** Directory for a V8 CPU profile (`--cpu-prof`), written when the server exits. */
  cpuProfDir?: string;
  startTimeoutMs?: number;
  /**
   * A command the server runs under, before `node` (e.g. `['valgrind', '--tool=callgrind', ...]`):
   * it must exec node in the same process, so that the IPC channel and the pid stay the server's.
   */
  wrap?: readonly string[];
  /** More `node` flags, before the entry (e.g. V8's `--no-memory-reducer`). */
  nodeArgs?: readonly string[];
}

export class ServerProcess {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private output = '';
  private exited = false;
  private readonly exitPromise: Promise<void>;

  private constructor(
    readonly kind: ServerKind,
    private readonly child: ChildProcess,
    readonly ready: { port: number; [key: string]: unknown },
  ) {
    this.exitPromise = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.ready.port}/mcp`;
  }

  static start(kind: ServerKind, options: StartOptions = {}): Promise<ServerProcess> {
    const args = ['--expose-gc', '--max-old-space-size=8192'];
    if (options.cpuProfDir) {
      args.push('--cpu-prof', '--cpu-prof-dir', options.cpuProfDir, '--cpu-prof-interval', '250');
    }
    if (options.nodeArgs) args.push(...options.nodeArgs);
    args.push(entryOf(kind));
    const env: NodeJS.ProcessEnv = { ...process.env, URLS: 'http://127.0.0.1:0', ...KIND_ENV[kind], ...options.env };
    const telemetry = ENTRIES[kind] === 'library-fixture.js' ? env.BENCH_TELEMETRY?.trim() || 'api' : undefined;
    const [command, ...prefix] = options.wrap?.length ? [...options.wrap, process.execPath] : [process.execPath];
    const child = spawn(command, [...prefix, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${kind} did not start within ${options.startTimeoutMs ?? 30_000} ms:\n${output}`));
      }, options.startTimeoutMs ?? 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${kind} exited with code ${code} before it was ready:\n${output}`));
      });
      child.on('message', function onReady(message: any) {
        if (message?.type !== 'ready') return;
        clearTimeout(timer);
        const mount = KIND_ENV[kind]?.BENCH_MOUNT;
        if (mount !== undefined && message.mount !== mount) {
          child.kill('SIGKILL');
          reject(new Error(`${kind} reported mount '${message.mount}', expected '${mount}'`));
          return;
        }
        // A library fixture says which Nest platform it runs on: an Express row must not be a
        // Fastify server, nor the reverse.
        const platform = telemetry === undefined ? undefined : env.BENCH_PLATFORM?.trim() || 'express';
        if (platform !== undefined && message.platform !== platform) {
          child.kill('SIGKILL');
          reject(new Error(`${kind} reported platform '${message.platform}', expected '${platform}'`));
          return;
        }
        if (telemetry !== undefined && message.telemetry !== telemetry) {
          child.kill('SIGKILL');
          reject(new Error(`${kind} reported telemetry '${message.telemetry}', expected '${telemetry}'`));
          return;
        }
        child.off('message', onReady);
        child.removeAllListeners('exit');
        const server = new ServerProcess(kind, child, message);
        server.output = output;
        child.stdout?.on('data', (chunk: Buffer) => (server.output = (server.output + String(chunk)).slice(-8_000)));
        child.stderr?.on('data', (chunk: Buffer) => (server.output = (server.output + String(chunk)).slice(-8_000)));
        child.on('message', (reply: any) => server.onReply(reply));
        child.once('exit', () => {
          server.exited = true;
          for (const { reject: fail } of server.pending.values()) fail(new Error(`${kind} exited:\n${server.output}`));
          server.pending.clear();
        });
        resolve(server);
      });
    });
  }

  /** The last lines the server printed (for error reports). */
  get log(): string {
    return this.output;
  }

  get alive(): boolean {
    return !this.exited;
  }

  private onReply(reply: any): void {
    const waiter = this.pending.get(reply?.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply);
    else waiter.reject(new Error(`${this.kind}: ${reply.error}`));
  }

  /** Sends a command over IPC; rejects after `timeoutMs`. */
  command<T = any>(cmd: string, args: object = {}, timeoutMs = 120_000): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`${this.kind} has exited:\n${this.output}`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.kind}: '${cmd}' got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.child.send({ id, cmd, ...args });
    });
  }

  /** RSS and heap after a forced GC, in bytes. */
  async memoryAfterGc(): Promise<NodeJS.MemoryUsage> {
    return (await this.command<{ memory: NodeJS.MemoryUsage }>('gc')).memory;
  }

  /** What `memoryAfterGc` measures, with the committed and used bytes of each V8 heap space. */
  async memoryAndSpacesAfterGc(): Promise<{
    memory: NodeJS.MemoryUsage;
    spaces: Record<string, { committed: number; used: number }>;
  }> {
    return this.command('gc');
  }

  /** Asks the server to exit (so a CPU profile gets written); kills it after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.exited) return;
    try {
      await this.command('exit', {}, 2_000);
    } catch {
      // already gone or not answering: the kill below handles it
    }
    const killed = await Promise.race([
      this.exitPromise.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs)),
    ]);
    if (killed && !this.exited) {
      this.child.kill('SIGKILL');
      await this.exitPromise;
    }
  }
}
