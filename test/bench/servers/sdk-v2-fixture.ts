/**
 * The official TypeScript SDK v2's handler serving the fixtures of fixture-spec.ts, shared by
 * the SDK v2 servers (sdk-v2-server.ts on `node:http`, sdk-fastify-server.ts on
 * `@modelcontextprotocol/fastify`): `createMcpHandler(factory)`, a fresh `McpServer` from the
 * factory for each request. It serves MCP 2026-07-28 per request and 2025-era traffic through
 * its stateless legacy fallback (no sessions: a legacy `tools/call` needs no `initialize`, and
 * there is no GET stream, so the session fan-out's `barrier` has nothing to reach and is not
 * registered). `subscriptions/listen` is the SDK's own; `bump` and the bench's `notify`
 * publish `resources/updated` through `handler.notify`.
 *
 * Limits raised for the bench: `maxSubscriptions` (default 1,024) to 1,000,000 so the listen
 * fan-out can open 10,000 listens; `keepAliveMs: 0` (no SSE comment frames during a run).
 */
import { createMcpHandler, McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { BenchHooks } from './child-ipc.js';
import { COUNTER_URI, SERVER_INFO } from './fixture-spec.js';

const echoInput = z.object({ text: z.string() });

/** A `createMcpHandler` handler whose per-request servers register `echo`, `bump` and `mem://counter`. */
export function createSdkV2FixtureHandler(): McpHttpHandler {
  let counter = 0;
  const createServer = (): McpServer => {
    const server = new McpServer(SERVER_INFO, { capabilities: { resources: { subscribe: true, listChanged: true } } });
    server.registerTool(
      'echo',
      { description: 'Answers the text it is given.', inputSchema: echoInput },
      ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
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
  };
  const handler = createMcpHandler(() => createServer(), { maxSubscriptions: 1_000_000, keepAliveMs: 0 });
  return handler;
}

/** The bench's IPC hooks for an SDK v2 handler: `notify` through `handler.notify`, no sessions to count. */
export const sdkV2Hooks = (handler: McpHttpHandler): BenchHooks => ({
  notify: (uri) => handler.notify.resourceUpdated(uri),
  sessionCount: () => 0,
});
