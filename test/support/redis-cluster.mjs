/**
 * A Redis Cluster for tests: three masters with a replica each, six `redis-server` processes of
 * this test's own on free 127.0.0.1 ports (client port and cluster-bus port both chosen, so no
 * port+10000 collides), joined by `redis-cli --cluster create --cluster-replicas 1`. Without
 * persistence; every process is stopped on every path (a failed start kills what it started).
 * The node timeout is short so that a killed master's replica is promoted within seconds.
 *
 * Plain JavaScript (types in redis-cluster.d.mts): the e2e-redis-cluster project's global setup
 * loads it natively, outside Jest's transform.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { stopChild } from './child-process.mjs';

/** A TCP port free on 127.0.0.1 right now (this module is loaded natively by a global setup: no TS imports). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
/**
 * How long a node may be unreachable before the cluster fails it over (ms). Short, so that a
 * failover test is quick, but not so short that a busy machine's scheduling makes the nodes
 * fail each other over (a false failover loses the writes of a master that did not know yet).
 */
export const CLUSTER_NODE_TIMEOUT_MS = 3_000;
function runOnce(command, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms: ${output}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk) => (output += chunk.toString()));
    child.stderr.on('data', (chunk) => (output += chunk.toString()));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} exited with ${code}: ${output}`));
    });
  });
}
async function call(port, args) {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    client.disconnect();
  }
}
/** Polls `check` every 50 ms until it holds; fails after `timeoutMs` (a start that never settles). */
async function until(what, check, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
/** A port free now and not handed out before in this start (a closed probe's port can come back). */
async function unusedPort(taken) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await freePort();
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no unused port on 127.0.0.1 after 20 attempts');
}
/**
 * Starts one cluster-enabled node on ports not used yet, and waits until it answers. A port free
 * when probed may be taken before the server binds it (another process's connection): a node
 * that exits instead of answering is started again on other ports, at most five times.
 */
async function startNode(dir, taken) {
  for (let attempt = 1; ; attempt++) {
    const port = await unusedPort(taken);
    const busPort = await unusedPort(taken);
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--cluster-port',
        String(busPort),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        String(CLUSTER_NODE_TIMEOUT_MS),
        '--save',
        '',
        '--appendonly',
        'no',
        // A replica's first full sync starts at once (the default waits 5 s for more replicas).
        '--repl-diskless-sync-delay',
        '0',
        '--loglevel',
        'warning',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    child.once('error', () => undefined);
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    try {
      await until(`redis-server on port ${port} did not start`, async () => {
        if (exited()) return true;
        return (await call(port, ['PING'])) === 'PONG';
      });
    } catch (error) {
      await stopChild(child, 'SIGKILL');
      throw error;
    }
    if (!exited()) return { port, process: child };
    if (attempt === 5) throw new Error(`redis-server exited at start five times (last on port ${port})`);
  }
}
/** Starts the six nodes and creates the cluster; resolves once every node says the cluster is ok. */
export async function startCluster() {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-cluster-'));
  const nodes = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => stopChild(node.process)));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set();
    for (let i = 0; i < 6; i++) nodes.push(await startNode(dir, taken));
    await runOnce(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      30_000,
    );
    for (const { port } of nodes) {
      await until('the cluster did not become ok', async () =>
        String(await call(port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok'),
      );
    }
    // Every replica done with its first full sync: a master killed before that has no replica
    // holding its data (a failover test would test that, not a failover).
    for (const { port } of nodes) {
      await until('a replica did not finish its first sync', async () => {
        const info = String(await call(port, ['INFO', 'replication']));
        return info.includes('role:master')
          ? /^slave0:.*state=online/m.test(info)
          : info.includes('master_link_status:up') && info.includes('master_sync_in_progress:0');
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const alive = () => nodes.filter((node) => node.process.exitCode === null && node.process.signalCode === null);
  const masterOf = async (key) => {
    const slot = Number(await call(alive()[0].port, ['CLUSTER', 'KEYSLOT', key]));
    const shards = await call(alive()[0].port, ['CLUSTER', 'SLOTS']);
    const shard = shards.find(([from, to]) => slot >= from && slot <= to);
    if (!shard) throw new Error(`no master serves slot ${slot}`);
    return Number(shard[2][1]);
  };
  return {
    seeds: nodes.map((node) => `127.0.0.1:${node.port}`),
    nodes,
    prefix: () => `t-${randomBytes(5).toString('hex')}:`,
    command: (port, ...args) => call(port, args),
    masterOf,
    /**
     * Resolves once every replica of the master on `port` has acknowledged everything the master
     * had written when this was called (its replication offset then): later writes (heartbeats
     * go on) need not be replicated, so a busy master is waited for only as long as its lag.
     */
    async waitForReplication(port) {
      const offsets = async () => {
        const info = String(await call(port, ['INFO', 'replication']));
        return {
          master: Number(/master_repl_offset:(\d+)/.exec(info)?.[1]),
          // A replica still in its first sync counts as behind (its offset is not one yet).
          replicas: [...info.matchAll(/^slave\d+:.*state=(\w+),offset=(\d+)/gm)].map((match) =>
            match[1] === 'online' ? Number(match[2]) : -1,
          ),
        };
      };
      const written = (await offsets()).master;
      await until(`the replicas of port ${port} did not catch up`, async () => {
        const { replicas } = await offsets();
        return replicas.length > 0 && replicas.every((replica) => replica >= written);
      });
    },
    async moveSlot(key, toPort, between, first = []) {
      const from = await masterOf(key);
      if (from === toPort) throw new Error(`port ${toPort} serves the slot of ${key} already`);
      const slot = Number(await call(from, ['CLUSTER', 'KEYSLOT', key]));
      const idOf = async (port) => String(await call(port, ['CLUSTER', 'MYID']));
      const [fromId, toId] = await Promise.all([idOf(from), idOf(toPort)]);
      await call(toPort, ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId]);
      await call(from, ['CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId]);
      // Keys move one batch at a time, the caller's work running between batches.
      const named = [...first];
      for (let batch = 0; batch < 1_000; batch++) {
        const keys = named.length > 0 ? named.splice(0, 2) : await call(from, ['CLUSTER', 'GETKEYSINSLOT', slot, 2]);
        if (keys.length === 0) break;
        await call(from, ['MIGRATE', '127.0.0.1', toPort, '', 0, 5_000, 'KEYS', ...keys]);
        await between?.();
      }
      for (const { port } of alive()) {
        const info = String(await call(port, ['INFO', 'replication']));
        if (info.includes('role:master')) await call(port, ['CLUSTER', 'SETSLOT', slot, 'NODE', toId]);
      }
    },
    async kill(port) {
      const node = nodes.find((candidate) => candidate.port === port);
      if (node) await stopChild(node.process, 'SIGKILL');
    },
    async waitForFailover(port) {
      await until(
        `no replica replaced the master on port ${port}`,
        async () => {
          for (const { port: live } of alive()) {
            if (!String(await call(live, ['CLUSTER', 'INFO'])).includes('cluster_state:ok')) return false;
          }
          const shards = await call(alive()[0].port, ['CLUSTER', 'SLOTS']);
          return shards.every((shard) => Number(shard[2][1]) !== port);
        },
        30_000,
      );
    },
    stop,
  };
}
