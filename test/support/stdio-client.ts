/**
 * The built gateway in `--stdio` mode as a child process, for wire tests: every stdout line is
 * kept raw and parsed, stderr is collected, requests wait on their response line, and the exit
 * is observable. Nothing here sleeps: waits are on lines and on the process events.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageLog } from './message-log.js';

/** The folder holding package.json (this file is test/support/stdio-client.ts). */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built entry point of the reference gateway. */
export const GATEWAY_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'main.js');

/**
 * Runs `scripts/build-if-needed.mjs`: `nest build` only when `dist/src/main.js` is missing or
 * older than the sources. Its output (on stderr) is returned for diagnostics.
 */
export function buildGatewayIfNeeded(timeoutMs = 180_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(PROJECT_ROOT, 'scripts', 'build-if-needed.mjs')],
      { cwd: PROJECT_ROOT, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`building the gateway failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stderr);
      },
    );
  });
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StdioGateway {
  child: ChildProcessWithoutNullStreams;
  /** Every complete stdout line, raw, in order. */
  readonly lines: string[];
  /** Every stdout line that parsed as JSON, in order (see `lines` for the raw text). */
  readonly messages: readonly any[];
  /** Everything written to stderr so far. */
  readonly stderr: string;
  /** Resolves when the process has exited and its streams are closed. */
  exited: Promise<ProcessExit>;
  readonly hasExited: boolean;
  /** Writes raw bytes to stdin, honouring back-pressure. */
  write(chunk: string | Buffer): Promise<void>;
  /** Writes one JSON-RPC message as one line. */
  send(message: object): Promise<void>;
  /** Sends a request with a fresh id and resolves with the response carrying that id. */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<any>;
  /**
   * `initialize` then `notifications/initialized`; resolves with the initialize response. The
   * wait covers the child's boot (and, through npm, a rebuild), hence its own longer timeout.
   */
  initialize(protocolVersion?: string, timeoutMs?: number): Promise<any>;
  /**
   * The first parsed message at position >= `fromIndex` (in `messages`) that matches; rejects
   * after `timeoutMs`, or as soon as the process exits without one.
   */
  waitFor(predicate: (message: any) => boolean, timeoutMs?: number, fromIndex?: number): Promise<any>;
  /** Ends stdin (EOF). */
  endInput(): void;
  /** Ends stdin and waits (bounded) for the exit; kills the process if it does not exit in time. */
  stop(timeoutMs?: number): Promise<ProcessExit>;
}

let nextId = 1;

/** How to start the server; the default is the built gateway run directly by Node. */
export interface StdioCommand {
  command: string;
  args: string[];
  /** Opens an IPC channel to the child as well (for a probe, see probed-gateway.ts). */
  ipc?: boolean;
}

/** `node dist/src/main.js --stdio`. */
export const BUILT_GATEWAY: StdioCommand = { command: process.execPath, args: [GATEWAY_ENTRY, '--stdio'] };

/**
 * `npm run --silent start:stdio`, the command docs/transports.md gives desktop clients. Uses the npm
 * that runs the tests when there is one (`npm_execpath`), else `npm` from the PATH.
 */
export const NPM_START_STDIO: StdioCommand = process.env.npm_execpath
  ? { command: process.execPath, args: [process.env.npm_execpath, 'run', '--silent', 'start:stdio'] }
  : { command: 'npm', args: ['run', '--silent', 'start:stdio'] };

/**
 * Spawns the gateway in stdio mode, by default `node dist/src/main.js --stdio` (build it first
 * with {@link buildGatewayIfNeeded}).
 */
export function spawnStdioGateway(env: Record<string, string> = {}, how: StdioCommand = BUILT_GATEWAY): StdioGateway {
  const child = spawn(how.command, how.args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: how.ipc ? ['pipe', 'pipe', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  const lines: string[] = [];
  let stderr = '';
  const describe = (): string => {
    const out = JSON.stringify(lines).slice(0, 2_000);
    return `stdout lines: ${out}; stderr tail: ${JSON.stringify(stderr.slice(-1_000))}`;
  };
  const log = new MessageLog<any>('stdout message', describe);
  let pending = '';
  let hasExited = false;

  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('close', (code, signal) => {
      hasExited = true;
      log.end('the process exited');
      resolve({ code, signal });
    });
  });
  // A write to a process that already exited fails with EPIPE; the test sees the exit instead.
  child.stdin.on('error', () => undefined);
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      lines.push(line);
      let message: any;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      log.push(message);
    }
  });
  child.stdout.on('end', () => {
    // A last line without its newline is still a line of output.
    if (pending) lines.push(pending);
    pending = '';
  });

  const write = (chunk: string | Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (hasExited || child.stdin.destroyed) {
        reject(new Error('the stdio gateway is not running'));
        return;
      }
      child.stdin.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  const send = (message: object) => write(`${JSON.stringify(message)}\n`);
  const waitFor = (predicate: (message: any) => boolean, timeoutMs = 5_000, fromIndex = 0): Promise<any> =>
    log.waitFor(predicate, timeoutMs, fromIndex);
  const request = async (method: string, params?: Record<string, unknown>, timeoutMs = 5_000) => {
    const id = nextId++;
    const answer = waitFor((m) => m?.id === id && ('result' in m || 'error' in m), timeoutMs, log.length);
    await send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return answer;
  };
  return {
    child,
    lines,
    messages: log.all(),
    get stderr() {
      return stderr;
    },
    exited,
    get hasExited() {
      return hasExited;
    },
    write,
    send,
    request,
    async initialize(protocolVersion = '2025-11-25', timeoutMs = 15_000) {
      const response = await request(
        'initialize',
        { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-stdio-test', version: '1.0.0' } },
        timeoutMs,
      );
      if (!response.result) throw new Error(`initialize over stdio failed: ${JSON.stringify(response)}`);
      await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return response;
    },
    waitFor,
    endInput() {
      if (!child.stdin.destroyed) child.stdin.end();
    },
    async stop(timeoutMs = 5_000) {
      if (!hasExited) {
        if (!child.stdin.destroyed) child.stdin.end();
        const guard = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        await exited;
        clearTimeout(guard);
      }
      return exited;
    },
  };
}
