import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals';
import { Redis } from 'ioredis';
import type { McpModuleOptions } from '@nest-mcp/server';
import type { McpBackendParts } from '@nest-mcp/server/backend';
import { deploymentOf, type BackendDeployment } from '@nest-mcp/server/testing';
import { RedisMcpBackend, type RedisMcpBackendOptions } from '../../libs/mcp-redis/src/redis.backend.js';
import { startRedis, type TestRedis } from './redis-server.js';

/** What `redisDeployments` gives a spec file, usable from its tests on. */
export interface RedisDeployments {
  /** The file's own `redis-server`. */
  readonly redis: TestRedis;
  /** A plain connection to it, for the state a test writes or reads behind the backend's back. */
  readonly raw: Redis;
  /** The key prefix of the latest deployment (`newPrefix` or `instances`). */
  readonly prefix: string;
  /** A key prefix no deployment used, the next one's: for state written before it starts. */
  newPrefix(): string;
  /**
   * A deployment of `count` instances (ids `i1`, `i2`, ...) on the prefix `newPrefix` gave since
   * the last deployment, else a new one; closed after the test.
   */
  instances(
    count: number,
    options?: Partial<RedisMcpBackendOptions>,
    module?: Partial<McpModuleOptions>,
  ): Promise<McpBackendParts[]>;
  /** One more instance (the next id) in the latest deployment. */
  addInstance(module?: Partial<McpModuleOptions>): Promise<McpBackendParts>;
}

/**
 * The set-up of the Redis backend's own spec files: a `redis-server` of the file's own (they
 * kill its connections, read MONITOR or INFO, or stop it), a plain connection to it, and fresh
 * deployments of `RedisMcpBackend` instances, each on a key prefix of its own, closed after each
 * test, passed or failed. A test that timed out runs on in the background: an instance it asks
 * for after its afterEach is refused, so none outlives the test, with its heartbeat and its
 * reconnecting connections keeping Jest from exiting once the server is gone. Registers the
 * file's hooks: call it once, at the top of the file.
 */
export function redisDeployments(defaults: Partial<RedisMcpBackendOptions> = {}): RedisDeployments {
  let redis: TestRedis | undefined;
  let raw: Redis | undefined;
  let deployment: BackendDeployment | undefined;
  let prefix = '';
  let unused: string | undefined;
  let running = false;

  beforeAll(async () => {
    redis = await startRedis({ own: true });
    // Gives up instead of reconnecting for ever: a test that outlived the server must not keep
    // the run alive.
    raw = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: (times) => (times > 20 ? null : 100) });
  }, 30_000);

  beforeEach(() => {
    running = true;
  });

  afterEach(async () => {
    running = false;
    const closing = deployment;
    deployment = undefined;
    await closing?.close();
  });

  afterAll(async () => {
    raw?.disconnect();
    await redis?.stop();
  });

  const inTest = (): void => {
    if (!running) throw new Error('The test already ended (it failed or timed out): no instance starts after it');
  };

  const started = <T>(value: T | undefined, name: string): T => {
    if (value === undefined)
      throw new Error(`no ${name} yet: the file's beforeAll makes the server, instances() a deployment`);
    return value;
  };

  return {
    get redis() {
      return started(redis, 'redis');
    },
    get raw() {
      return started(raw, 'raw');
    },
    get prefix() {
      return prefix;
    },
    newPrefix() {
      prefix = unused = started(redis, 'redis').prefix();
      return prefix;
    },
    async instances(count, options = {}, module = {}) {
      inTest();
      const url = started(redis, 'redis').url;
      const keyPrefix = unused ?? this.newPrefix();
      unused = undefined;
      let n = 0;
      await deployment?.close();
      const current = (deployment = deploymentOf(
        () => new RedisMcpBackend({ url, keyPrefix, instanceId: `i${++n}`, ...defaults, ...options }),
      ));
      const parts: McpBackendParts[] = [];
      // Checked before each start: an afterEach meanwhile closed the deployment, the instance
      // starting then included.
      for (let i = 0; i < count; i++) {
        inTest();
        parts.push(await current.instance(module));
      }
      return parts;
    },
    addInstance(module = {}) {
      inTest();
      return started(deployment, 'a deployment').instance(module);
    },
  };
}
