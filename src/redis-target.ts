import type { RedisOptions } from 'ioredis';
import type { GatewayConfig } from './gateway.config.js';

/** Where the gateway's Redis is: one server (`url`), or a cluster's seed nodes and the options of every node. */
export interface RedisTarget {
  readonly url?: string;
  readonly clusterNodes?: readonly string[];
  /** Credentials and TLS of every node of a cluster, from REDIS_URL when it is set too. */
  readonly nodeOptions?: RedisOptions;
}

/** The gateway's Redis from its configuration; undefined when it runs in memory. */
export function redisTargetOf(config: GatewayConfig): RedisTarget | undefined {
  if (config.redisClusterNodes) {
    return { clusterNodes: config.redisClusterNodes, nodeOptions: nodeOptionsOf(config.redisUrl) };
  }
  return config.redisUrl ? { url: config.redisUrl } : undefined;
}

/** A `redis://` or `rediss://` URL's credentials and TLS, for every node of a cluster. */
function nodeOptionsOf(url: string | undefined): RedisOptions {
  if (url === undefined) return {};
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
