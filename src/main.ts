import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { hostOf, loadGatewayConfig, portOf } from './gateway.config.js';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig();
  const app = await NestFactory.create(AppModule.forConfig(config), { bufferLogs: false });
  app.enableShutdownHooks();
  await app.listen(portOf(config.url), hostOf(config.url));
  new Logger('Gateway').log(`MCP endpoint: ${config.url.origin}/mcp`);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
