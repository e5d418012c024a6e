/**
 * The official `@modelcontextprotocol/sdk` server, as its documentation shows it: a stateful
 * `StreamableHTTPServerTransport` on Express (a map from session id to transport), one
 * `McpServer` per session, and the fixtures of fixture-spec.ts.
 *
 * The SDK has no `resources/subscribe` handler of its own, so this registers one keeping a map
 * from URI to subscribed session ids; `bump` sends `notifications/resources/updated` through the
 * subscribed sessions' servers (that is, on their GET streams).
 *
 * `enableJsonResponse: true` makes the SDK answer a POST with JSON as the library does (the bench
 * client accepts both; SSE answers would add framing work to the SDK side only).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { COUNTER_URI, resourcesToRegister, resourceText, resourceUri, SERVER_INFO } from './fixture-spec.js';

const transports = new Map<string, StreamableHTTPServerTransport>();
const servers = new Map<string, McpServer>();
/** URI -> subscribed session ids. */
const subscribers = new Map<string, Set<string>>();
let counter = 0;
const extraResources = resourcesToRegister();

async function notifyUpdated(uri: string): Promise<number> {
  const ids = subscribers.get(uri);
  if (!ids || ids.size === 0) return 0;
  const sends: Promise<void>[] = [];
  for (const id of ids) {
    const server = servers.get(id);
    if (server) sends.push(server.server.sendResourceUpdated({ uri }));
  }
  await Promise.all(sends);
  return sends.length;
}

function unsubscribeAll(sessionId: string): void {
  for (const [uri, ids] of subscribers) {
    if (ids.delete(sessionId) && ids.size === 0) subscribers.delete(uri);
  }
}

function createServer(sessionId: () => string | undefined): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { resources: { subscribe: true, listChanged: true } } });
  server.registerTool(
    'echo',
    { description: 'Answers the text it is given.', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool('bump', { description: 'Increments the counter and notifies subscribers.' }, async () => {
    counter += 1;
    const reached = await notifyUpdated(COUNTER_URI);
    return { content: [{ type: 'text', text: JSON.stringify({ counter, reached }) }] };
  });
  server.registerTool('barrier', { description: 'Sends list_changed to every open stream.' }, async () => {
    for (const other of servers.values()) other.sendResourceListChanged();
    return { content: [{ type: 'text', text: JSON.stringify({ reached: servers.size }) }] };
  });
  server.registerResource('Counter', COUNTER_URI, { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: String(counter) }],
  }));
  for (let i = 0; i < extraResources; i++) {
    const text = resourceText(i);
    server.registerResource(`Resource ${i}`, resourceUri(i), { mimeType: 'text/plain' }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text }],
    }));
  }
  server.server.setRequestHandler(SubscribeRequestSchema, ({ params }) => {
    const id = sessionId();
    if (id) {
      const ids = subscribers.get(params.uri) ?? new Set<string>();
      ids.add(id);
      subscribers.set(params.uri, ids);
    }
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, ({ params }) => {
    const id = sessionId();
    if (id) subscribers.get(params.uri)?.delete(id);
    return {};
  });
  return server;
}

const app = express();
app.use(express.json({ limit: '4mb' }));

app.post('/mcp', async (req: Request, res: Response) => {
  const id = req.headers['mcp-session-id'];
  const transport = typeof id === 'string' ? transports.get(id) : undefined;
  if (!transport) {
    if (id !== undefined || !isInitializeRequest(req.body)) {
      res
        .status(400)
        .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no valid session' }, id: null });
      return;
    }
    const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => {
        transports.set(sessionId, created);
      },
    });
    created.onclose = () => {
      const sessionId = created.sessionId;
      if (!sessionId) return;
      transports.delete(sessionId);
      servers.delete(sessionId);
      unsubscribeAll(sessionId);
    };
    const server = createServer(() => created.sessionId);
    await server.connect(created);
    await created.handleRequest(req, res, req.body);
    if (created.sessionId) servers.set(created.sessionId, server);
    return;
  }
  await transport.handleRequest(req, res, req.body);
});

const sessionRequest = async (req: Request, res: Response) => {
  const id = req.headers['mcp-session-id'];
  const transport = typeof id === 'string' ? transports.get(id) : undefined;
  if (!transport) {
    res.status(400).send('Invalid or missing session ID');
    return;
  }
  await transport.handleRequest(req, res);
};
app.get('/mcp', sessionRequest);
app.delete('/mcp', sessionRequest);

const { host, port } = listenAddress('http://127.0.0.1:5101');
const listener = app.listen(port, host, () => {
  serveBenchIpc(
    { port: (listener.address() as AddressInfo).port, registered: extraResources },
    { notify: notifyUpdated, sessionCount: () => transports.size },
    () =>
      new Promise<void>((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  );
});
