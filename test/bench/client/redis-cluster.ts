/**
 * The bench's own Redis Cluster: three masters with a replica each, six `redis-server`
 * processes on free 127.0.0.1 ports, started by the tests' cluster helper
 * (test/support/redis-cluster.mjs) and stopped by `stop()` on every path. Also the bench's view
 * of it, summed over the three masters: INFO commandstats, CPU; FLUSHALL on each master.
 */
import { Redis } from 'ioredis';
import type { TestCluster } from '../../support/redis-cluster.mjs';
import type { BenchRedis } from './redis-server.js';
import { countRoundTrips } from './redis-monitor.js';

/**
 * The helper is plain JavaScript outside the bench's build: loaded from the source tree at run
 * time (this file runs from test/bench/results/.build/test/bench/client/).
 */
const CLUSTER_HELPER = new URL('../../../../../../support/redis-cluster.mjs', import.meta.url);

/**
 * ioredis's cluster client asks for the slot map on its own schedule (CLUSTER SLOTS, CLUSTER
 * INFO): its upkeep, not a request's or a notification's commands.
 */
const CLIENT_UPKEEP = new Set([
  'info',
  'cluster|slots',
  'cluster|info',
  'cluster|nodes',
  'cluster',
  'command',
  'command|docs',
  'command|info',
  'command|count',
]);

export class RedisClusterProcess implements BenchRedis {
  private constructor(
    private readonly cluster: TestCluster,
    /** One plain connection per master (never a cluster client: the bench reads each node). */
    private readonly masters: Redis[],
  ) {}

  /** `host:port` of every node: the seeds the library's instances are given. */
  get seeds(): readonly string[] {
    return this.cluster.seeds;
  }

  get masterCount(): number {
    return this.masters.length;
  }

  static async start(): Promise<RedisClusterProcess> {
    const { startCluster } = (await import(CLUSTER_HELPER.href)) as typeof import('../../support/redis-cluster.mjs');
    const cluster = await startCluster();
    const masters: Redis[] = [];
    try {
      for (const { port } of cluster.nodes) {
        const role = String(await cluster.command(port, 'INFO', 'replication'));
        if (!role.includes('role:master')) continue;
        const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
        client.on('error', () => undefined);
        masters.push(client);
        await client.connect();
      }
      if (masters.length !== 3) throw new Error(`the cluster has ${masters.length} masters, not 3`);
      return new RedisClusterProcess(cluster, masters);
    } catch (error) {
      for (const client of masters) client.disconnect();
      await cluster.stop();
      throw error;
    }
  }

  instanceEnv(): Record<string, string> {
    return { BENCH_REDIS_CLUSTER: this.cluster.seeds.join(',') };
  }

  async version(): Promise<string | undefined> {
    return /redis_version:(\S+)/.exec(await this.masters[0].info('server'))?.[1];
  }

  /** Calls per command so far, summed over the masters, without the bench's INFO and the cluster client's upkeep. */
  async commandCalls(): Promise<Record<string, number>> {
    const calls: Record<string, number> = {};
    for (const master of this.masters) {
      const text = await master.info('commandstats');
      for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        if (!CLIENT_UPKEEP.has(match[1])) calls[match[1]] = (calls[match[1]] ?? 0) + Number(match[2]);
      }
    }
    return calls;
  }

  roundTrips<T>(during: () => Promise<T>): Promise<{ result: T; trips: Record<string, number> }> {
    return countRoundTrips(this.masters, during);
  }

  /** CPU seconds the masters have used so far (INFO cpu: user + system), summed. */
  async cpuSeconds(): Promise<number> {
    let seconds = 0;
    for (const master of this.masters) {
      const text = await master.info('cpu');
      const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
      seconds += field('used_cpu_user') + field('used_cpu_sys');
    }
    return seconds;
  }

  async flush(): Promise<void> {
    await Promise.all(this.masters.map((master) => master.flushall()));
  }

  /** Closes the bench's connections and stops the six nodes (SIGTERM, then SIGKILL). */
  async stop(): Promise<void> {
    for (const master of this.masters) master.disconnect();
    await this.cluster.stop();
  }
}
