/**
 * The built gateway in a child process of its own, with a probe over IPC (probed-gateway.mjs):
 * its memory after a full collection, and in stdio mode whether it reads stdin and how much of
 * its stdout is unread. For tests of what a misbehaving client does to the server process.
 * Build the gateway first (`buildGatewayIfNeeded()` in stdio-client.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { join } from 'node:path';
import { MessageLog } from './message-log.js';
import { PROJECT_ROOT, type StdioCommand } from './stdio-client.js';

const SCRIPT = join(PROJECT_ROOT, 'test', 'support', 'probed-gateway.mjs');

/** The gateway in `--stdio` mode with the probe; pass it to `spawnStdioGateway`. */
export const PROBED_STDIO_GATEWAY: StdioCommand = {
  command: process.execPath,
  args: ['--expose-gc', SCRIPT, '--stdio'],
  ipc: true,
};

export interface GatewayProbe {
  memory: NodeJS.MemoryUsage;
  /** stdio mode: false while the server has stopped reading stdin. */
  stdinFlowing?: boolean | null;
  /** stdio mode: bytes written to stdout that the client has not read yet. */
  stdoutBacklog?: number;
}

let nextProbe = 1;

/** Asks a child started with the probe script for its state. */
export function probe(child: ChildProcess, timeoutMs = 5_000): Promise<GatewayProbe> {
  const id = nextProbe++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`no probe answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: { id?: number } & GatewayProbe) => {
      if (message?.id !== id) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.send({ id, cmd: 'probe' });
  });
}

/** Polls the probe (bounded) until `condition` holds; resolves with the probe that satisfied it. */
export async function probeUntil(
  child: ChildProcess,
  condition: (state: GatewayProbe) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<GatewayProbe> {
  const deadline = Date.now() + timeoutMs;
  let last: GatewayProbe | undefined;
  while (Date.now() < deadline) {
    last = await probe(child);
    if (condition(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms (last probe: ${JSON.stringify(last)})`);
}

export interface HttpGatewayProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  probe(): Promise<GatewayProbe>;
  /** Stops the process (bounded) and resolves once it exited. */
  stop(): Promise<void>;
}

/** Starts the gateway over HTTP (WebSocket at `/ws`) on a free loopback port. */
export async function startProbedHttpGateway(timeoutMs = 30_000): Promise<HttpGatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--expose-gc', SCRIPT], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, URLS: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output = new MessageLog<string>('gateway log line');
  for (const stream of [child.stdout!, child.stderr!]) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) output.push(line);
    });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => output.end('the gateway exited'));
  await output.waitFor((line) => line.includes('MCP endpoints'), timeoutMs);
  return {
    child,
    origin: `http://127.0.0.1:${port}`,
    probe: () => probe(child),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const guard = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(guard);
    },
  };
}
