// globalSetup of the e2e-redis project: the Redis its in-process gateways run on, named in
// MCP_E2E_REDIS_SERVER. REDIS_URL when set, else a redis-server of this run's own on a free
// 127.0.0.1 port, without persistence, stopped by redis-global-teardown.mjs. A global setup's
// environment reaches the workers of every project, so the switch to Redis (MCP_E2E_REDIS_URL)
// is made per test file by redis-env.ts, in the e2e-redis project only.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const pong = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });

export default async function setup() {
  if (process.env.REDIS_URL?.trim()) {
    process.env.MCP_E2E_REDIS_SERVER = process.env.REDIS_URL.trim();
    return;
  }
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  let failed = false;
  // A server that did not start is not left running: the run fails without it.
  await new Promise((resolve, reject) => {
    child.once('error', (error) => {
      failed = true;
      reject(new Error(`cannot run redis-server (${error.message}): install it or set REDIS_URL`));
    });
    const deadline = Date.now() + 10_000;
    const probe = async () => {
      if (failed) return;
      if (await pong(port)) return resolve();
      if (Date.now() > deadline) {
        failed = true;
        return reject(new Error(`redis-server on port ${port} did not start`));
      }
      setTimeout(probe, 20);
    };
    void probe();
  }).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  globalThis.__MCP_E2E_REDIS__ = child;
  process.env.MCP_E2E_REDIS_SERVER = `redis://127.0.0.1:${port}`;
}
