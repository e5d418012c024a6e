import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { AddressInfo } from 'node:net';
import { runMcpStdio } from '@app/mcp';
import { AppModule } from './app.module.js';
import { hostOf, loadGatewayConfig, portOf } from './gateway.config.js';
import { createGatewayApp } from './gateway.platform.js';
import { startGatewayTelemetry } from './telemetry/otel-sdk.js';
import { TraceConsoleLogger } from './telemetry/trace-logger.js';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig();
  // Before the application exists: the library takes its tracer and meter from the global API
  // when its module is created. Without OTEL_EXPORTER_OTLP_*ENDPOINT or MCP_PROMETHEUS, nothing
  // of the OpenTelemetry SDK is loaded.
  const telemetry = await startGatewayTelemetry(config);
  if (config.stdio) {
    await runMcpStdio(AppModule.forConfig(config, telemetry));
    process.exit(0);
  }
  // Colour codes only for a person at a terminal, never into a file or a pipe.
  const colors = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  const app = await createGatewayApp(AppModule.forConfig(config, telemetry), config.httpPlatform, {
    logger: new TraceConsoleLogger({ colors }),
  });
  app.useWebSocketAdapter(new WsAdapter(app));
  app.enableShutdownHooks();
  // A client dribbling its headers or body (slowloris) is cut off; these bound receiving the
  // request only, so long-lived SSE answers are unaffected.
  const server = app.getHttpServer();
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await app.listen(portOf(config.url), hostOf(config.url));
  // The port actually bound (URLS may ask for port 0).
  const host = `${config.url.hostname}:${(server.address() as AddressInfo).port}`;
  // Legacy SSE carries only the 2025 era: a modern-only gateway refuses it, so it is not offered.
  const legacySse = config.protocolEras === 'modern' ? '' : `, http://${host}/sse (legacy SSE)`;
  const logger = new Logger('Gateway');
  logger.log(
    `MCP endpoints: http://${host}/mcp (Streamable HTTP), ws://${host}/ws${legacySse}; HTTP platform: ${config.httpPlatform}`,
  );
  if (telemetry) {
    const { traces, otlpMetrics, prometheus } = telemetry.plan;
    const onListener = prometheus && config.prometheus?.port === undefined ? ` (http://${host}/metrics)` : '';
    const parts = [
      traces && 'traces over OTLP',
      otlpMetrics && 'metrics over OTLP',
      prometheus && `Prometheus metrics${onListener}`,
    ];
    logger.log(`OpenTelemetry: ${parts.filter(Boolean).join(', ')}`);
  }
  if (config.wireProfile === 'gateway') {
    // Where a user of an official client meets the difference first: say it here.
    logger.log(
      "Wire profile 'gateway': resources/subscribe answers { subscribed: true, uri }, the reference gateway's contract; " +
        "official SDK clients reject that shape in subscribeResource(): set MCP_WIRE_PROFILE=strict for the MCP schema's {}",
    );
  }
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
