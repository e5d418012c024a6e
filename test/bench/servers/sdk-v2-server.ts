/**
 * The official TypeScript SDK v2 (`@modelcontextprotocol/server` + `@modelcontextprotocol/node`),
 * as its serving guide shows it: `createMcpHandler(factory)` wrapped once with `toNodeHandler` on
 * a plain `node:http` server. It serves MCP 2026-07-28 per request (a fresh `McpServer` from the
 * factory for each request) and 2025-era traffic through its stateless legacy fallback (no
 * sessions: a legacy `tools/call` needs no `initialize`). `subscriptions/listen` is the SDK's
 * own; `bump` and the bench's `notify` publish `resources/updated` through `handler.notify`.
 *
 * Limits raised for the bench: `maxSubscriptions` (default 1,024) to 1,000,000 so the listen
 * fan-out can open 10,000 listens; `keepAliveMs: 0` (no SSE comment frames during a run).
 */
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { COUNTER_URI, SERVER_INFO } from './fixture-spec.js';

let counter = 0;
const echoInput = z.object({ text: z.string() });

function createServer(): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { resources: { subscribe: true, listChanged: true } } });
  server.registerTool('echo', { description: 'Answers the text it is given.', inputSchema: echoInput }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('bump', { description: 'Increments the counter and notifies the listeners.' }, () => {
    counter += 1;
    handler.notify.resourceUpdated(COUNTER_URI);
    // The SDK does not count deliveries: -1 says "not reported".
    return { content: [{ type: 'text', text: JSON.stringify({ counter, reached: -1 }) }] };
  });
  server.registerResource('Counter', COUNTER_URI, { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: String(counter) }],
  }));
  return server;
}

const handler = createMcpHandler(() => createServer(), { maxSubscriptions: 1_000_000, keepAliveMs: 0 });
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
  serveBenchIpc(
    { port: (server.address() as AddressInfo).port },
    { notify: (uri) => handler.notify.resourceUpdated(uri), sessionCount: () => 0 },
    async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  );
});
