import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WsAdapter } from '@nestjs/platform-ws';
import { runMcpStdio } from '@app/mcp';
import { AppModule } from './app.module.js';
import { hostOf, loadGatewayConfig, portOf } from './gateway.config.js';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig();
  if (config.stdio) {
    await runMcpStdio(AppModule.forConfig(config));
    process.exit(0);
  }
  const app = await NestFactory.create(AppModule.forConfig(config));
  app.useWebSocketAdapter(new WsAdapter(app));
  app.enableShutdownHooks();
  // A client dribbling its headers or body (slowloris) is cut off; these bound receiving the
  // request only, so long-lived SSE answers are unaffected.
  const server = app.getHttpServer() as import('node:http').Server;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await app.listen(portOf(config.url), hostOf(config.url));
  const origin = config.url.origin;
  new Logger('Gateway').log(
    `MCP endpoints: ${origin}/mcp (Streamable HTTP), ws://${config.url.host}/ws, ${origin}/sse (legacy SSE)`,
  );
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
