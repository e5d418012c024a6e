import { Injectable, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { McpExpressPlatform, type ExpressInstance } from './express.platform.js';
import { McpFastifyPlatform, type FastifyInstance } from './fastify.platform.js';
import type { McpHttpPlatform } from './http-platform.js';

/**
 * Without an HTTP server (an application context, as stdio runs in) no controller is ever
 * routed: nothing to adapt.
 */
const NO_HTTP_SERVER: McpHttpPlatform = {
  name: 'express',
  nodeObjects: true,
  request: (req) => req as IncomingMessage,
  response: (res) => res as ServerResponse,
  readBodiesFirst: () => undefined,
  releaseHeld: () => undefined,
  routed: () => undefined,
};

/**
 * The platform of the application's HTTP adapter, chosen once from its type, never per request.
 * Neither platform package is imported: the library runs on whichever one the application has,
 * and needs neither installed.
 * @throws McpDefinitionError naming the supported platforms for any other adapter
 */
export function choosePlatform(host: HttpAdapterHost | undefined): McpHttpPlatform {
  const adapter = host?.httpAdapter;
  if (!adapter) return NO_HTTP_SERVER;
  const type = adapter.getType();
  if (type === 'express') {
    return new McpExpressPlatform(
      adapter.getInstance<ExpressInstance>(),
      () => adapter.getHttpServer() as Server | undefined,
    );
  }
  if (type === 'fastify') return new McpFastifyPlatform(adapter.getInstance<FastifyInstance>());
  throw new McpDefinitionError(
    `The MCP HTTP transports run on @nestjs/platform-express or @nestjs/platform-fastify, and this application's HTTP adapter is '${String(type)}': create the application with one of them (npm install @nestjs/platform-express, or @nestjs/platform-fastify with new FastifyAdapter())`,
  );
}

/**
 * Holds the platform of the HTTP transports' controllers. It is chosen on first use, which is
 * the body reader's installation in `onModuleInit`: providers are built before the application
 * has its HTTP adapter (`Test.createTestingModule().compile()` builds them before
 * `createNestApplication()` is given one), so the choice cannot be made in a constructor.
 */
@Injectable()
export class McpHttpPlatformHost {
  private chosen?: McpHttpPlatform;

  constructor(@Optional() private readonly adapterHost?: HttpAdapterHost) {}

  get platform(): McpHttpPlatform {
    return (this.chosen ??= choosePlatform(this.adapterHost));
  }
}
