/**
 * The official TypeScript SDK v2 on Fastify, as the SDK's Fastify serving guide mounts it:
 * `createMcpFastifyApp()` from `@modelcontextprotocol/fastify` (a `Fastify()` instance with the
 * SDK's Host and Origin validation hooks for a loopback bind) and one route,
 * `app.all('/mcp', (request, reply) => node(request.raw, reply.raw, request.body))`, where
 * `node` is `toNodeHandler(createMcpHandler(factory))` from `@modelcontextprotocol/node`: Fastify
 * parses the JSON body and the adapter is handed the parsed value, so it does not read the
 * stream again. The handler and its fixtures are sdk-v2-fixture.ts's, the same as the SDK v2
 * server on `node:http` (sdk-v2-server.ts): both eras, the legacy one through the SDK's
 * stateless fallback (no sessions), `subscriptions/listen` for the modern fan-out.
 */
import { createMcpFastifyApp } from '@modelcontextprotocol/fastify';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AddressInfo } from 'node:net';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { createSdkV2FixtureHandler, sdkV2Hooks } from './sdk-v2-fixture.js';

async function main(): Promise<void> {
  const handler = createSdkV2FixtureHandler();
  const node = toNodeHandler(handler);
  const { host, port } = listenAddress('http://127.0.0.1:5106');
  // The bind address decides the SDK's default validation (on for 127.0.0.1, localhost, ::1).
  const app = createMcpFastifyApp({ host });
  app.all('/mcp', (request, reply) => node(request.raw, reply.raw, request.body));
  await app.listen({ host, port });
  serveBenchIpc({ port: (app.server.address() as AddressInfo).port }, sdkV2Hooks(handler), async () => {
    await handler.close();
    await app.close();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
