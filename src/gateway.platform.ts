import type { DynamicModule, INestApplication, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { GatewayHttpPlatform } from './gateway.config.js';

/**
 * Creates the gateway's application on the chosen Nest HTTP platform. Fastify's adapter is
 * imported only when it is chosen; Express is Nest's default (`@nestjs/platform-express`).
 */
export async function createGatewayApp(
  module: DynamicModule,
  platform: GatewayHttpPlatform,
  options: NestApplicationOptions,
): Promise<INestApplication> {
  if (platform === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    return NestFactory.create(module, new FastifyAdapter(), options);
  }
  const app = await NestFactory.create(module, options);
  // Express announces itself in every answer unless told not to (Fastify does not).
  (app.getHttpAdapter().getInstance() as { disable(setting: string): void }).disable('x-powered-by');
  return app;
}
