/**
 * The framework's floor: a bare NestJS platform-express controller. Nest's own JSON body parser
 * reads the body and the controller answers with floor-core.ts through `@Res()` (`res.json`),
 * the same route path the library's own controller takes (it writes through `@Res()` too): the
 * least a Nest controller route costs.
 */
import 'reflect-metadata';
import { Body, Controller, Delete, Get, Headers, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Response } from 'express';
import type { AddressInfo } from 'node:net';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { endSession, floorStats, handleRpc, notifyUpdated, openStream } from './floor-core.js';

@Controller('mcp')
class FloorController {
  @Post()
  post(@Body() body: unknown, @Headers('mcp-session-id') sessionId: string | undefined, @Res() res: Response): void {
    const answer = handleRpc(body, sessionId);
    res.status(answer.status);
    if (answer.sessionId) res.setHeader('mcp-session-id', answer.sessionId);
    if (answer.body === undefined) res.end();
    else res.json(answer.body);
  }

  @Get()
  get(@Headers('mcp-session-id') sessionId: string | undefined, @Res() res: Response): void {
    if (!openStream(sessionId, res)) res.status(404).end();
  }

  @Delete()
  delete(@Headers('mcp-session-id') sessionId: string | undefined, @Res() res: Response): void {
    res.status(endSession(sessionId) ? 204 : 404).end();
  }
}

@Module({ controllers: [FloorController] })
class NestFloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(NestFloorModule, { logger: ['error', 'warn'] });
  const { host, port } = listenAddress('http://127.0.0.1:5102');
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
