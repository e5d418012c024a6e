/**
 * Several processes of the built reference gateway on one Redis, behind the round-robin proxy,
 * plus one in-process instance on the same Redis ("control", not behind the proxy) whose
 * services a test can call: a notification sent through it reaches every instance's clients.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import { RedisKeys } from '../../libs/mcp-redis/src/redis-keys.js';
import { buildGatewayIfNeeded, GATEWAY_ENTRY, PROJECT_ROOT } from './stdio-client.js';
import { startGateway, type RunningGateway } from './gateway-app.js';
import { freePort } from './free-port.js';
import { startRedis, type TestRedis } from './redis-server.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';

export interface GatewayProcess {
  readonly instanceId: string;
  readonly origin: string;
  readonly child: ChildProcess;
  /** Everything the process wrote (stdout and stderr). */
  readonly output: () => string;
  /** Resolves when the process exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface GatewayCluster {
  /** The environment every instance got. */
  readonly env: Record<string, string>;
  readonly redis: TestRedis;
  readonly keyPrefix: string;
  readonly proxy: RoundRobinProxy;
  /** The MCP endpoint behind the proxy. */
  readonly endpoint: string;
  readonly instances: GatewayProcess[];
  /** The in-process instance on the same Redis (not behind the proxy). */
  readonly control: RunningGateway;
  close(): Promise<void>;
}

export interface ClusterOptions {
  /** Gateway processes behind the proxy. @default 3 */
  instances?: number;
  /** More environment for every instance (the control one included). */
  env?: Record<string, string>;
  /** Use a redis-server of the test's own even when REDIS_URL is set (to pause or restart it). */
  ownRedis?: boolean;
  /** The proxy's port (a free one by default), when the endpoint must be known beforehand. */
  proxyPort?: number;
}

/** Starts one gateway process and resolves once it listens. */
async function spawnGateway(instanceId: string, env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [GATEWAY_ENTRY], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env, URLS: origin, MCP_INSTANCE_ID: instanceId },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${instanceId} did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('MCP endpoints:')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`${instanceId} exited with ${code} before listening:\n${output}`));
    });
  });
  return { instanceId, origin, child, output: () => output, exited };
}

/** Stops a gateway process gracefully (SIGTERM: streams drain, sessions stay), bounded. */
export async function stopGateway(instance: GatewayProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  instance.child.kill(signal);
  const timer = setTimeout(() => instance.child.kill('SIGKILL'), 10_000);
  await instance.exited;
  clearTimeout(timer);
}

/**
 * The Redis Cluster of the e2e-redis-cluster project (`MCP_E2E_REDIS_CLUSTER_NODES`, started by
 * its global setup) as the Redis of a gateway cluster: commands run on a short-lived cluster
 * client; the cluster cannot be restarted from a test.
 */
function redisClusterOf(seeds: string): TestRedis {
  const nodes = seeds.split(',').map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) }));
  return {
    url: '',
    owned: false,
    prefix: () => `t-${randomBytes(5).toString('hex')}:`,
    async command(...args) {
      const client = new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: 1 } });
      client.on('error', () => undefined);
      try {
        return await client.call(String(args[0]), ...args.slice(1).map(String));
      } finally {
        client.disconnect();
      }
    },
    restart: () => Promise.reject(new Error('the Redis Cluster of the run cannot be restarted by a test')),
    stop: async () => undefined,
  };
}

/** Builds the gateway when needed, then starts Redis, the instances, the proxy and the control instance. */
export async function startGatewayCluster(options: ClusterOptions = {}): Promise<GatewayCluster> {
  await buildGatewayIfNeeded();
  const clusterNodes = process.env.MCP_E2E_REDIS_CLUSTER_NODES;
  const redis = clusterNodes ? redisClusterOf(clusterNodes) : await startRedis({ own: options.ownRedis });
  const keyPrefix = redis.prefix();
  const target: Record<string, string> = clusterNodes
    ? { REDIS_CLUSTER_NODES: clusterNodes }
    : { REDIS_URL: redis.url };
  const env = { ...target, MCP_REDIS_KEY_PREFIX: keyPrefix, ...options.env };
  const instances = await Promise.all(
    Array.from({ length: options.instances ?? 3 }, (_, i) => spawnGateway(`gw-${i + 1}`, env)),
  );
  const proxy = await startRoundRobinProxy(
    instances.map((instance) => instance.origin),
    options.proxyPort,
  );
  const control = await startGateway({ ...env, MCP_INSTANCE_ID: 'control' });
  return {
    env,
    redis,
    keyPrefix,
    proxy,
    endpoint: `${proxy.origin}/mcp`,
    instances,
    control,
    async close() {
      await proxy.close();
      await Promise.all(instances.map((instance) => stopGateway(instance)));
      await control.close();
      await redis.stop();
    },
  };
}

/** Starts instance `index` of the cluster again (same id, same environment, a new port). */
export function spawnClusterInstance(cluster: GatewayCluster, index: number): Promise<GatewayProcess> {
  return spawnGateway(`gw-${index + 1}`, cluster.env);
}

/** True when some instance holds the session's standalone stream (its hash names a holder). */
export async function streamHeldSomewhere(cluster: GatewayCluster, sessionId: string): Promise<boolean> {
  const keys = new RedisKeys(cluster.keyPrefix, cluster.env.REDIS_CLUSTER_NODES ? 256 : 1);
  return (await cluster.redis.command('HEXISTS', keys.session(sessionId), 'holder')) === 1;
}
