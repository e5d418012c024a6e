import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// The Host/Origin allowlists /mcp applies (transport.allowedHosts / allowedOrigins), one instance
// per application; not on the package's public entry, hence the path.
import { McpOriginPolicy } from '@app/mcp/transports/connection/origin-policy.js';
import { GATEWAY_CONFIG, hostOf, type GatewayConfig } from '../gateway.config.js';
import { hasScrapeToken } from './metrics-scrape.js';
import type { GatewayTelemetry } from './otel-sdk.js';

export const GATEWAY_TELEMETRY = Symbol('GATEWAY_TELEMETRY');

/** The path of the Prometheus scrape, on the gateway's listener or on its own port. */
export const METRICS_PATH = '/metrics';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Flushes and stops the OpenTelemetry SDK when the application closes (SIGTERM included). */
@Injectable()
export class GatewayTelemetryShutdown implements OnApplicationShutdown {
  constructor(@Inject(GATEWAY_TELEMETRY) private readonly telemetry: GatewayTelemetry) {}

  // After the listeners have closed: the spans and metrics of the last requests are in the flush.
  async onApplicationShutdown(): Promise<void> {
    await this.telemetry.shutdown();
  }
}

/**
 * `GET /metrics` for Prometheus, behind the same Host and Origin checks as `/mcp` (a refused
 * request gets the same 403), and with `MCP_PROMETHEUS_TOKEN` behind its bearer token (401). On the gateway's listener, it answers from the HTTP server's request
 * listener ahead of the framework, as the library's own mounts do; with `MCP_PROMETHEUS_PORT`, on
 * a listener of its own on the gateway's host.
 */
@Injectable()
export class GatewayMetricsEndpoint implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Telemetry');
  private ownServer?: Server;

  constructor(
    @Inject(GATEWAY_TELEMETRY) private readonly telemetry: GatewayTelemetry,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onModuleInit(): Promise<void> {
    const scrape = this.telemetry.prometheus;
    const prometheus = this.config.prometheus;
    if (!scrape || !prometheus) return;
    const policy = this.moduleRef.get(McpOriginPolicy, { strict: false });
    const token = prometheus.token;
    const serve = (req: IncomingMessage, res: ServerResponse): void => {
      if (!policy.admit(req, res)) return;
      // Host and Origin checks are not access control: with a token, nothing is served without it.
      if (token !== undefined && !hasScrapeToken(req, token)) {
        res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="metrics"', 'Content-Type': 'text/plain' });
        res.end('Send the scrape token as Authorization: Bearer <MCP_PROMETHEUS_TOKEN>\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
        res.end('Use GET\n');
        return;
      }
      void scrape(req, res);
    };
    if (prometheus.port !== undefined) {
      this.ownServer = await this.listen(prometheus.port, serve);
      return;
    }
    const server = this.adapterHost?.httpAdapter?.getHttpServer?.() as Server | undefined;
    if (!server) return;
    const application = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (isMetricsPath(req.url)) serve(req, res);
      else for (const listener of application) listener.call(server, req, res);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.ownServer;
    if (!server) return;
    this.ownServer = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(port: number, serve: RequestListener): Promise<Server> {
    const server = createServer((req, res) => {
      if (isMetricsPath(req.url)) return serve(req, res);
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end(`Not found: metrics are at ${METRICS_PATH}\n`);
    });
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    const host = hostOf(this.config.url);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = (server.address() as AddressInfo).port;
    this.logger.log(`Prometheus metrics: http://${this.config.url.hostname}:${bound}${METRICS_PATH}`);
    return server;
  }
}

function isMetricsPath(url: string | undefined): boolean {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  const path = query === -1 ? raw : raw.slice(0, query);
  return path === METRICS_PATH || path === `${METRICS_PATH}/`;
}

/** The providers the gateway adds for its telemetry (none when telemetry is off). */
export function telemetryProviders(config: GatewayConfig, telemetry: GatewayTelemetry | undefined): Provider[] {
  if (!telemetry) return [];
  return [
    { provide: GATEWAY_TELEMETRY, useValue: telemetry },
    GatewayTelemetryShutdown,
    ...(config.prometheus && telemetry.prometheus ? [GatewayMetricsEndpoint] : []),
  ];
}
