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
