import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { McpLiveStreams } from '@nest-mcp/server/backend';
import { MCP_LIVE_STREAMS } from '@app/mcp/backend/mcp-backend.tokens.js';
import { AppModule } from '../../src/app.module.js';
import { loadGatewayConfig, portOf } from '../../src/gateway.config.js';
import { createGatewayApp } from '../../src/gateway.platform.js';
import { E2E_HTTP_PLATFORM } from './http-platform.js';
import { PROJECT_ROOT } from './stdio-client.js';

export interface RunningGateway {
  app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `http://127.0.0.1:<port>/mcp` */
  endpoint: string;
  /** True when the gateway (any of its instances) holds the session's standalone stream. */
  streamHeld(sessionId: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Starts the reference gateway on 127.0.0.1 with the given environment, on a free port unless
 * `URLS` names one (resource-server mode needs it beforehand: tokens name the endpoint URL).
 * - With `MCP_E2E_CLUSTER=1` (the cluster e2e project), it is three gateway processes on Redis
 *   behind a round-robin proxy: `endpoint` is the proxy's, and `app` an instance on the same
 *   Redis outside the proxy (a notification sent through it reaches every instance's clients).
 * - With `MCP_E2E_REDIS_URL` set, the one gateway runs on that Redis, under a key prefix of its own.
 */
export async function startGateway(env: Record<string, string> = {}): Promise<RunningGateway> {
  if (process.env.MCP_E2E_CLUSTER === '1' && env.MCP_INSTANCE_ID === undefined) {
    const { startGatewayCluster, streamHeldSomewhere } = await import('./gateway-cluster.js');
    const cluster = await startGatewayCluster({ env });
    return {
      app: cluster.control.app,
      origin: cluster.proxy.origin,
      endpoint: cluster.endpoint,
      streamHeld: (sessionId) => streamHeldSomewhere(cluster, sessionId),
      close: () => cluster.close(),
    };
  }
  await bundleGatewayApps();
  const redis = process.env.MCP_E2E_REDIS_URL
    ? { REDIS_URL: process.env.MCP_E2E_REDIS_URL, MCP_REDIS_KEY_PREFIX: `e2e-${randomBytes(5).toString('hex')}:` }
    : {};
  // On the run's HTTP platform (MCP_HTTP_PLATFORM, as the gateway reads it), unless `env` names one.
  const platform = { MCP_HTTP_PLATFORM: E2E_HTTP_PLATFORM };
  const config = loadGatewayConfig({ URLS: 'http://127.0.0.1:0', ...platform, ...redis, ...env }, []);
  const app = await createGatewayApp(AppModule.forConfig(config), config.httpPlatform, { logger: ['error', 'warn'] });
  app.useWebSocketAdapter(new WsAdapter(app));
  await app.listen(portOf(config.url), '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const liveStreams = app.get<McpLiveStreams>(MCP_LIVE_STREAMS);
  return {
    app,
    origin,
    endpoint: `${origin}/mcp`,
    streamHeld: async (sessionId) => liveStreams.holds(sessionId),
    close: () => app.close(),
  };
}

let appsBundled: Promise<void> | undefined;

/**
 * Bundles the gateway's MCP Apps when their bundle (dist-apps/) is missing or stale, once per
 * test file: the notes board reads its HTML when the gateway starts. The built gateway gets them
 * from `buildGatewayIfNeeded()` instead.
 */
export function bundleGatewayApps(): Promise<void> {
  appsBundled ??= new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [join(PROJECT_ROOT, 'scripts', 'build-apps.mjs'), '--if-stale'],
      { cwd: PROJECT_ROOT, timeout: 120_000 },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`bundling the gateway's apps failed: ${error.message}\n${stderr}`));
        else resolve();
      },
    );
  });
  return appsBundled;
}

/**
 * The capabilities the reference gateway declares in `initialize`, exactly (sessions on): every
 * feature it serves, each with the sub-keys the library sets. `completions` is there because its
 * prompts and templates have completers; `logging` is always offered; the MCP Apps extension
 * because of its notes board, the skills extension because of its notes skill; `tasks` because
 * `notes.export` supports them.
 */
export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
  extensions: { 'io.modelcontextprotocol/ui': {}, 'io.modelcontextprotocol/skills': { directoryRead: true } },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};
