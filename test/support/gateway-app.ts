import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WsAdapter } from '@nestjs/platform-ws';
import type { AddressInfo } from 'node:net';
import { AppModule } from '../../src/app.module.js';
import { loadGatewayConfig } from '../../src/gateway.config.js';

export interface RunningGateway {
  app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `http://127.0.0.1:<port>/mcp` */
  endpoint: string;
  close(): Promise<void>;
}

/** Starts the reference gateway on 127.0.0.1 with a free port and the given environment. */
export async function startGateway(env: Record<string, string> = {}): Promise<RunningGateway> {
  const config = loadGatewayConfig({ URLS: 'http://127.0.0.1:0', ...env }, []);
  const app = await NestFactory.create(AppModule.forConfig(config), { logger: ['error', 'warn'] });
  app.useWebSocketAdapter(new WsAdapter(app));
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return { app, origin, endpoint: `${origin}/mcp`, close: () => app.close() };
}
