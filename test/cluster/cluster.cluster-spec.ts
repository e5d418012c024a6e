/**
 * Several instances on Redis behind a round-robin proxy that sends each request of a session to
 * a different instance than its previous one: routing of client answers and
 * cancellations, and the faults (an instance killed, Redis paused, Redis restarted empty).
 * Waits are on messages, stream ends and process exits, bounded in time.
 */
import 'reflect-metadata';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { McpCtx, McpModule, McpTool, ResourceNotificationService, type McpRequestContext } from '@app/mcp';
import { RedisMcpBackend } from '@nest-mcp/redis';
import { AskingTools } from '../fixtures/asking.tools.js';
import { spawnClusterInstance, startGatewayCluster, type GatewayCluster } from '../support/gateway-cluster.js';
import { openSession } from '../support/raw-http.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy.js';
import { isListChanged, isUpdated, rawSession, updatedUris, type SseClient } from '../support/sse-client.js';

const INFO = 'system://info';
const METRICS = 'system://metrics';
const CONFIG = 'config://gateway';
const SHARED_STATE_KEY = 'cluster-test-request-state-key-0123456789';
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

/** The instance that served the session's last request (its GET stream, when that was last). */
const lastInstance = (cluster: GatewayCluster, sessionId: string): number =>
  cluster.proxy.served.filter((request) => request.sessionId === sessionId).at(-1)!.instance;

/**
 * The faults of one Redis server (paused, restarted empty) run where the gateways share one; on a
 * Redis Cluster (the e2e-redis-cluster project) a node's faults are the failover and resharding
 * tests' (libs/mcp-redis/src/redis-cluster-failover.spec.ts): a cluster's nodes are not paused
 * or emptied one test at a time.
 */
const onOneRedis = process.env.MCP_E2E_REDIS_CLUSTER_NODES === undefined;
const itOnOneRedis = onOneRedis ? it : it.skip;

describe('three gateway processes on Redis behind a round-robin proxy', () => {
  let cluster: GatewayCluster;
  const streams = new Set<SseClient>();

  beforeAll(async () => {
    // One signing key list for every instance: a multi round-trip request continues anywhere.
    cluster = await startGatewayCluster({ ownRedis: true, env: { MCP_REQUEST_STATE_KEYS: SHARED_STATE_KEY } });
  }, 120_000);

  afterEach(() => {
    for (const stream of streams) stream.close();
    streams.clear();
  });

  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  const notify = (uri: string) => cluster.control.app.get(ResourceNotificationService).notifyResourceUpdated(uri);

  it('sends every request of a session to a different instance than the one before', async () => {
    const session = rawSession(cluster.endpoint, await openSession(cluster.endpoint));
    for (let i = 0; i < 4; i++) expect((await session.rpc('ping', {})).result).toEqual({});
    const served = cluster.proxy.served.filter((request) => request.sessionId === session.sessionId);
    expect(served.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < served.length; i++) expect(served[i].instance).not.toBe(served[i - 1].instance);
  });

  it('a modern SDK v2 client: listen() receives what is published through another instance, only for its URIs', async () => {
    const client = new ClientV2({ name: 'cluster-v2-listen', version: '1.0.0' }, MODERN);
    const updates: string[] = [];
    let configArrived!: () => void;
    const lastOne = new Promise<void>((resolve) => (configArrived = resolve));
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params.uri);
      if (notification.params.uri === CONFIG) configArrived();
    });
    await client.connect(new StreamableHTTPClientTransportV2(new URL(cluster.endpoint)));
    try {
      const subscription = await client.listen({ resourceSubscriptions: [INFO, CONFIG] });
      expect(subscription.honoredFilter.resourceSubscriptions).toEqual([INFO, CONFIG]);
      // The control instance publishes; the listen is held by one of the three behind the proxy.
      for (const uri of [METRICS, INFO, CONFIG]) await notify(uri);
      await lastOne;
      expect(updates).toEqual([INFO, CONFIG]);
      await subscription.close();
      expect(await subscription.closed).toBe('local');
    } finally {
      await client.close();
    }
  }, 30_000);

  it('MRTR across instances: notes.clear asks on one instance and finishes on another', async () => {
    const client = new ClientV2(
      { name: 'cluster-v2-mrtr', version: '1.0.0' },
      { ...MODERN, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
    await client.connect(new StreamableHTTPClientTransportV2(new URL(cluster.endpoint)));
    try {
      await client.callTool({ name: 'notes.create', arguments: { title: 'Doomed', body: 'soon gone' } });
      const before = cluster.proxy.served.length;
      const cleared = await client.callTool({ name: 'notes.clear', arguments: {} });
      expect(cleared.isError).toBeFalsy();
      const { deleted } = JSON.parse((cleared.content as Array<{ text: string }>)[0].text) as { deleted: number };
      expect(deleted).toBeGreaterThanOrEqual(1);
      // Two rounds (input_required, then the retry with the answer), each on its own instance.
      const rounds = cluster.proxy.served.slice(before).filter((request) => request.method === 'POST');
      expect(rounds.length).toBe(2);
      expect(rounds[1].instance).not.toBe(rounds[0].instance);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('kill -9 of the instance holding a GET stream: the client resumes through the proxy with Last-Event-ID, missing nothing', async () => {
    const session = rawSession(cluster.endpoint, await openSession(cluster.endpoint));
    for (const uri of [INFO, METRICS, CONFIG]) expect((await session.subscribe(uri)).error).toBeUndefined();
    const first = await session.openStream();
    streams.add(first);
    const holder = cluster.instances[lastInstance(cluster, session.sessionId)];
    await notify(INFO);
    const seen = await first.waitFor(isUpdated(INFO));

    holder.child.kill('SIGKILL');
    await holder.exited;
    // Whatever this test asserts, the instance comes back (a new process with the same id), so
    // the next tests have three behind the proxy.
    const index = cluster.instances.indexOf(holder);
    const restarted = restartInstance(cluster, index).then((instance) => (cluster.instances[index] = instance));
    await first.ended;
    for (const uri of [METRICS, CONFIG, INFO]) expect((await notify(uri)).sessions).toBe(1);

    const resumed = await session.openStream({ lastEventId: seen.id });
    streams.add(resumed);
    expect(resumed.status).toBe(200);
    expect(lastInstance(cluster, session.sessionId)).not.toBe(cluster.instances.indexOf(holder));
    await resumed.waitFor(isUpdated(INFO));
    expect(updatedUris(resumed.events)).toEqual([METRICS, CONFIG, INFO]);
    // A list_changed from an earlier test's notes tools may be replayed too (it is coalesced on a
    // timer, so it can land after the last seen event); the updates are what is checked here.
    const updates = resumed.events.filter((event) => !isListChanged(event));
    const ids = updates.map((event) => Number(event.id!.split(':')[2]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toBeGreaterThan(Number(seen.id!.split(':')[2]));
    await restarted;
  }, 60_000);

  itOnOneRedis(
    'Redis paused for 5 s: POSTs answer 503 with Retry-After, no process exits, and the update published meanwhile arrives',
    async () => {
      const session = rawSession(cluster.endpoint, await openSession(cluster.endpoint));
      expect((await session.subscribe(INFO)).error).toBeUndefined();
      const stream = await session.openStream();
      streams.add(stream);

      await cluster.redis.command('CLIENT', 'PAUSE', 5_000, 'ALL');
      const paused = Date.now();
      const during = await session.request('tools/list', {});
      expect(during.status).toBe(503);
      expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(during.json.error).toEqual(expect.objectContaining({ code: -32000, message: 'Service unavailable' }));
      // Published while Redis is paused: the call times out here, the script runs when Redis is back.
      const published = notify(INFO).catch((error: Error) => error);
      expect(Date.now() - paused).toBeLessThan(5_000);

      await stream.waitFor(isUpdated(INFO), 15_000);
      await published;
      for (const instance of cluster.instances) expect(instance.child.exitCode).toBeNull();
      const after = await session.request('tools/list', {});
      expect(after.status).toBe(200);
      // The subscription survived.
      const mark = stream.events.length;
      await notify(INFO);
      await stream.waitFor(isUpdated(INFO), 5_000, mark);
    },
    60_000,
  );

  itOnOneRedis(
    'Redis restarted empty: sessions answer 404, and a client that re-initializes works again',
    async () => {
      const session = rawSession(cluster.endpoint, await openSession(cluster.endpoint));
      await cluster.redis.restart();

      const deadline = Date.now() + 20_000;
      let status = 0;
      while (Date.now() < deadline && status !== 404) {
        status = (await session.request('tools/list', {})).status;
        if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(404);
      const again = rawSession(cluster.endpoint, await openSession(cluster.endpoint));
      expect((await again.rpc('tools/list', {})).result.tools.length).toBeGreaterThan(0);
      for (const instance of cluster.instances) expect(instance.child.exitCode).toBeNull();
    },
    60_000,
  );
});

/** Starts instance `index` again (same id, new port) and points the proxy at it. */
async function restartInstance(cluster: GatewayCluster, index: number) {
  const instance = await spawnClusterInstance(cluster, index);
  cluster.proxy.retarget(index, instance.origin);
  return instance;
}

@Injectable()
class WaitingTools {
  aborted: (reason: unknown) => void = () => undefined;
  readonly abortedReason = new Promise<unknown>((resolve) => (this.aborted = resolve));
  started: () => void = () => undefined;
  readonly running = new Promise<void>((resolve) => (this.started = resolve));

  @McpTool({ name: 'wait', description: 'Runs until it is cancelled' })
  async wait(@McpCtx() ctx: McpRequestContext) {
    this.started();
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        this.aborted(ctx.signal.reason);
        resolve();
      });
    });
    return 'cancelled';
  }
}

describe('routing between instances: client answers and cancellations', () => {
  let redis: TestRedis;
  let proxy: RoundRobinProxy;
  const apps: INestApplication[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const keyPrefix = redis.prefix();
    for (let i = 1; i <= 3; i++) {
      @Module({
        imports: [
          McpModule.forRoot({
            serverInfo: { name: 'routed', version: '1' },
            backend: new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId: `r${i}` }),
          }),
        ],
        providers: [AskingTools, WaitingTools],
      })
      class RoutedModule {}
      const app = await NestFactory.create(RoutedModule, { logger: false });
      await app.listen(0, '127.0.0.1');
      apps.push(app);
    }
    proxy = await startRoundRobinProxy(
      apps.map((app) => `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`),
    );
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    for (const app of apps) await app.close();
    await redis?.stop();
  });

  const connect = async (capabilities: Record<string, unknown> = {}) => {
    const client = new Client({ name: 'routed', version: '1' }, { capabilities });
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy.origin}/mcp`));
    await client.connect(transport);
    return { client, sessionId: transport.sessionId! };
  };

  it('an elicitation answered through another instance resolves the request that asked', async () => {
    const { client, sessionId } = await connect({ elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));

    const result = await client.callTool({ name: 'ask_user', arguments: {} });

    expect((result.content as { text: string }[])[0].text).toBe('hello Ada');
    const served = proxy.served.filter((request) => request.sessionId === sessionId);
    const call = served.findIndex(
      (request, i) => request.method === 'POST' && i > 0 && served[i + 1]?.method === 'POST',
    );
    expect(served[call + 1].instance).not.toBe(served[call].instance);
    await client.close();
  });

  it('notifications/cancelled through another instance aborts the handler where it runs', async () => {
    const { client } = await connect();
    const waiting = apps.map((app) => app.get(WaitingTools));
    const controller = new AbortController();
    const call = client
      .callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal })
      .catch((error: unknown) => error);
    await Promise.race(waiting.map((tools) => tools.running));
    controller.abort('changed my mind');

    const reason = await Promise.race(waiting.map((tools) => tools.abortedReason));
    expect(String(reason)).toContain('changed my mind');
    await call;
    await client.close();
  });
});
