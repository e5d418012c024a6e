/**
 * The framework's floor on Fastify: a bare NestJS controller on `@nestjs/platform-fastify`
 * (`FastifyAdapter`). Fastify's own JSON parser reads the body and the controller answers with
 * floor-core.ts through `@Res()` (`reply.send`), the JSON-RPC echo nest-floor.ts answers on
 * Express: the least a Nest controller route costs on Fastify, which the library's controller
 * mount on Fastify is set against.
 */
import 'reflect-metadata';
import { Body, Controller, Delete, Get, Headers, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import type { AddressInfo } from 'node:net';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { endSession, floorStats, handleRpc, notifyUpdated, openStream } from './floor-core.js';

@Controller('mcp')
class FloorController {
  @Post()
  post(
    @Body() body: unknown,
    @Headers('mcp-session-id') sessionId: string | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const answer = handleRpc(body, sessionId);
    reply.status(answer.status);
    if (answer.sessionId) reply.header('mcp-session-id', answer.sessionId);
    if (answer.body === undefined) void reply.send();
    else void reply.send(answer.body);
  }

  @Get()
  get(@Headers('mcp-session-id') sessionId: string | undefined, @Res() reply: FastifyReply): void {
    // The stream is written on Node's response: Fastify is told it sends nothing more.
    void reply.hijack();
    if (!openStream(sessionId, reply.raw)) reply.raw.writeHead(404).end();
  }

  @Delete()
  delete(@Headers('mcp-session-id') sessionId: string | undefined, @Res() reply: FastifyReply): void {
    void reply.status(endSession(sessionId) ? 204 : 404).send();
  }
}

@Module({ controllers: [FloorController] })
class NestFastifyFloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(NestFastifyFloorModule, new FastifyAdapter(), { logger: ['error', 'warn'] });
  const { host, port } = listenAddress('http://127.0.0.1:5103');
  await app.listen(port, host);
  serveBenchIpc(
    { port: (app.getHttpServer().address() as AddressInfo).port },
    { notify: notifyUpdated, ...floorStats },
    () => app.close(),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
