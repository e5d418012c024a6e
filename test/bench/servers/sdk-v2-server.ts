/**
 * The official TypeScript SDK v2 (`@modelcontextprotocol/server` + `@modelcontextprotocol/node`),
 * as its serving guide shows it: `createMcpHandler(factory)` wrapped once with `toNodeHandler` on
 * a plain `node:http` server (no Host or Origin validation in front: the guide's hand-wired
 * `node:http` server composes it itself, the bench's does not). The handler and its fixtures are
 * sdk-v2-fixture.ts's, shared with the SDK's Fastify server (sdk-fastify-server.ts).
 */
import { toNodeHandler } from '@modelcontextprotocol/node';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { createSdkV2FixtureHandler, sdkV2Hooks } from './sdk-v2-fixture.js';

const handler = createSdkV2FixtureHandler();
const nodeHandler = toNodeHandler(handler);

const server = http.createServer((req, res) => {
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  void nodeHandler(req, res);
});

const { host, port } = listenAddress('http://127.0.0.1:5104');
server.listen(port, host, () => {
  serveBenchIpc({ port: (server.address() as AddressInfo).port }, sdkV2Hooks(handler), async () => {
    await handler.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
