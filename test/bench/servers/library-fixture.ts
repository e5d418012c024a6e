/**
 * The bench fixture app of this library (`npm run start:bench-fixture`, listening on `URLS`,
 * default http://127.0.0.1:5100): `McpModule.forRoot` over Streamable HTTP with the fixtures of
 * fixture-spec.ts. It imports the library by relative path (`libs/mcp/src`), so plain `tsc -p
 * test/bench/tsconfig.json` builds it without rewriting the `@app/mcp` alias.
 *
 * `BENCH_ECHO_INPUT` picks the echo input model: `zod` (default, like the SDK server), `dto`
 * (class-validator) or `json` (a raw JSON Schema).
 *
 * `BENCH_MOUNT` picks how `/mcp` is mounted: `controller` (default: the library's Nest
 * controller, behind Express routing) or `direct` (`http: { mount: 'direct' }`: answered from the
 * HTTP server's request listener before Express; the bench's `library-direct` server).
 *
 * `BENCH_PLATFORM` picks Nest's HTTP platform: `express` (default, Nest's own) or `fastify`
 * (`FastifyAdapter`; the bench's `library-fastify` and `library-direct-fastify` servers).
 *
 * `BENCH_BACKEND=redis` puts the sessions, subscriptions and bus on `RedisMcpBackend`
 * (`REDIS_URL`, `MCP_INSTANCE_ID`; the bench's `library-redis` server, and the three instances of
 * the Redis phase); with `BENCH_REDIS_CLUSTER` (comma list of `host:port` seeds) on a Redis
 * Cluster instead (`clusterNodes`; the Redis Cluster phase); unset, the in-memory backend.
 *
 * `BENCH_TELEMETRY` picks the telemetry (the telemetry phase runs all three side by side):
 * `api` (default: the library's instruments on, no OpenTelemetry SDK installed, so the API's
 * no-ops run), `off` (`telemetry: { tracing: false, metrics: false }`: the build without
 * instrumentation) or `sdk` (the OpenTelemetry Node SDK of otel-sdk.ts started before the Nest app
 * is created, exporting over OTLP/HTTP to `BENCH_OTLP_URL`; shut down, flushing, on exit).
 *
 * The ready message reports the mount, the platform, the backend and the telemetry mode; the
 * bench refuses a server whose mount, platform or telemetry mode is not the one it asked for.
 */
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsString } from 'class-validator';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import {
  McpArgs,
  McpCtx,
  McpModule,
  McpResource,
  McpResourceService,
  McpServerStats,
  McpTool,
  ResourceNotificationService,
  type McpRequestContext,
} from '../../../libs/mcp/src/index.js';
import type { McpLiveStreams } from '../../../libs/mcp/src/backend/index.js';
import { MCP_LIVE_STREAMS } from '../../../libs/mcp/src/backend/mcp-backend.tokens.js';
import { RedisMcpBackend } from '../../../libs/mcp-redis/src/index.js';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { COUNTER_URI, resourcesToRegister, resourceText, resourceUri, SERVER_INFO } from './fixture-spec.js';

class EchoDto {
  @IsString() text!: string;
}

const ECHO_INPUTS = {
  zod: z.object({ text: z.string() }),
  dto: EchoDto,
  json: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
} as const;
const echoInput = ECHO_INPUTS[(process.env.BENCH_ECHO_INPUT ?? 'zod') as keyof typeof ECHO_INPUTS] ?? ECHO_INPUTS.zod;

const MOUNTS = ['controller', 'direct'] as const;
const mount = (process.env.BENCH_MOUNT?.trim() || 'controller') as (typeof MOUNTS)[number];
if (!MOUNTS.includes(mount)) throw new Error(`BENCH_MOUNT is '${mount}': controller or direct`);

const TELEMETRY_MODES = ['off', 'api', 'sdk'] as const;
const telemetryMode = (process.env.BENCH_TELEMETRY?.trim() || 'api') as (typeof TELEMETRY_MODES)[number];
if (!TELEMETRY_MODES.includes(telemetryMode)) throw new Error(`BENCH_TELEMETRY is '${telemetryMode}': off, api or sdk`);
const otlpUrl = process.env.BENCH_OTLP_URL?.trim();
if (telemetryMode === 'sdk' && !otlpUrl) throw new Error('BENCH_TELEMETRY=sdk needs BENCH_OTLP_URL');

const PLATFORMS = ['express', 'fastify'] as const;
const platform = (process.env.BENCH_PLATFORM?.trim() || 'express') as (typeof PLATFORMS)[number];
if (!PLATFORMS.includes(platform)) throw new Error(`BENCH_PLATFORM is '${platform}': express or fastify`);

const backendName = process.env.BENCH_BACKEND?.trim() || 'memory';
if (!['memory', 'redis'].includes(backendName)) throw new Error(`BENCH_BACKEND is '${backendName}': memory or redis`);
const clusterNodes = process.env.BENCH_REDIS_CLUSTER?.split(',')
  .map((seed) => seed.trim())
  .filter((seed) => seed !== '');
const backend =
  backendName !== 'redis'
    ? undefined
    : clusterNodes?.length
      ? new RedisMcpBackend({ clusterNodes, instanceId: process.env.MCP_INSTANCE_ID })
      : new RedisMcpBackend({ url: process.env.REDIS_URL, instanceId: process.env.MCP_INSTANCE_ID });

@Injectable()
class CounterState {
  value = 0;
}

@Injectable()
class BenchTools {
  constructor(
    private readonly state: CounterState,
    private readonly notifications: ResourceNotificationService,
  ) {}

  @McpTool({ name: 'echo', description: 'Answers the text it is given.', input: echoInput })
  echo(@McpArgs('text') text: string): string {
    return text;
  }

  @McpTool({ name: 'bump', description: 'Increments the counter and notifies the subscribers of mem://counter.' })
  async bump(): Promise<{ counter: number; reached: number }> {
    const counter = ++this.state.value;
    const reached = (await this.notifications.notifyResourceUpdated(COUNTER_URI)).sessions;
    return { counter, reached };
  }

  @McpTool({
    name: 'job',
    description: 'A task at once (the tasks phase), working until it is cancelled.',
    input: z.object({ label: z.string() }),
    taskSupport: 'optional',
  })
  async job(@McpArgs('label') label: string, @McpCtx() ctx: McpRequestContext): Promise<string> {
    await ctx.becomeTask?.();
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    return `${label} stopped`;
  }

  @McpTool({ name: 'barrier', description: 'Sends resources/list_changed to every open stream.' })
  async barrier(): Promise<{ reached: number }> {
    return { reached: (await this.notifications.notifyResourceListChanged()).sessions };
  }
}

@Injectable()
class BenchResources {
  constructor(private readonly state: CounterState) {}

  @McpResource({ uri: COUNTER_URI, name: 'Counter', mimeType: 'text/plain' })
  counter(): string {
    return String(this.state.value);
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: SERVER_INFO,
      http: { path: '/mcp', mount },
      // The default caps (10,000 sessions, 10,000 listens) are below the fan-out runs' counts.
      sessions: { max: 1_000_000 },
      modern: {
        maxListens: 1_000_000,
        // One key for every instance of the Redis phase (and no warning at startup).
        requestStateKeys: ['bench-request-state-key-0123456789abcdef'],
      },
      // Every task of the tasks phase comes from one caller (the bench, one address), and polls
      // all of them at their interval.
      tasks: { maxPerCaller: 10_000, maxStored: 10_001, pollRateLimit: false },
      ...(backend ? { backend } : {}),
      ...(telemetryMode === 'off' ? { telemetry: { tracing: false, metrics: false } } : {}),
    }),
  ],
  providers: [CounterState, BenchTools, BenchResources],
})
class BenchFixtureModule {}

async function main(): Promise<void> {
  // Before the app: the library takes its meter when the module is created.
  const sdk = telemetryMode === 'sdk' ? (await import('./otel-sdk.js')).startOtelSdk(otlpUrl!) : undefined;
  const options = { logger: ['error', 'warn'] as ('error' | 'warn')[] };
  // Fastify's adapter is loaded only for a Fastify server: the Express rows load what they did.
  const app =
    platform === 'fastify'
      ? await NestFactory.create(
          BenchFixtureModule,
          new (await import('@nestjs/platform-fastify')).FastifyAdapter(),
          options,
        )
      : await NestFactory.create(BenchFixtureModule, options);
  const { host, port } = listenAddress('http://127.0.0.1:5100');
  await app.listen(port, host);

  const resources = app.get(McpResourceService);
  const count = resourcesToRegister();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const text = resourceText(i);
    resources.register(resourceUri(i), () => text, { name: `Resource ${i}`, mimeType: 'text/plain' });
  }
  const registerMs = performance.now() - started;

  const notifications = app.get(ResourceNotificationService);
  const stats = app.get(McpServerStats);
  const liveStreams = app.get<McpLiveStreams>(MCP_LIVE_STREAMS);
  serveBenchIpc(
    {
      port: (app.getHttpServer().address() as AddressInfo).port,
      registered: count,
      registerMs,
      mount,
      platform,
      backend: clusterNodes?.length ? 'redis-cluster' : backendName,
      telemetry: telemetryMode,
    },
    {
      notify: (uri) => notifications.notifyResourceUpdated(uri),
      sessionCount: () => stats.openSessions(),
      streamCount: () => [...liveStreams.heldSessions()].length,
    },
    async () => {
      try {
        await app.close();
      } finally {
        // Flushes the spans still queued and the metrics of the last interval.
        await sdk?.shutdown();
      }
    },
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
