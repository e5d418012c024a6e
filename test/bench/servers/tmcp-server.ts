/**
 * `tmcp` (`McpServer` + `@tmcp/transport-http`'s `HttpTransport`) serving the echo fixture of
 * fixture-spec.ts, for the tools/call rows of the era phase. tmcp answers both the 2025 session
 * protocol and the per-request 2026-07-28 one on the same endpoint.
 *
 * tmcp is schema-agnostic through an adapter that turns a Standard Schema into JSON Schema; no
 * zod adapter is installed, so `ZodAdapter` below does it with zod 4's own `z.toJSONSchema`
 * (validation is the Standard Schema interface zod 4 implements). `HttpTransport.respond` takes
 * a web `Request`; the Node side goes through `toNodeHandler` of `@modelcontextprotocol/node`,
 * the same conversion the SDK v2 server pays.
 */
import { toNodeHandler } from '@modelcontextprotocol/node';
import { HttpTransport } from '@tmcp/transport-http';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from 'tmcp';
import { JsonSchemaAdapter } from 'tmcp/adapter';
import { z } from 'zod';
import { listenAddress, serveBenchIpc } from './child-ipc.js';
import { COUNTER_URI, SERVER_INFO } from './fixture-spec.js';

class ZodAdapter extends JsonSchemaAdapter<z.ZodType> {
  override toJsonSchema(schema: z.ZodType) {
    return Promise.resolve(z.toJSONSchema(schema) as never);
  }
}

let counter = 0;
const server = new McpServer(
  { ...SERVER_INFO, description: 'bench fixture' },
  { adapter: new ZodAdapter(), capabilities: { tools: {}, resources: { subscribe: true, listChanged: true } } },
);
server.tool(
  { name: 'echo', description: 'Answers the text it is given.', schema: z.object({ text: z.string() }) },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);
server.resource({ name: 'Counter', description: 'The counter', uri: COUNTER_URI }, (uri) => ({
  contents: [{ uri, mimeType: 'text/plain', text: String(counter) }],
}));
server.tool({ name: 'bump', description: 'Increments the counter and notifies subscribers.' }, () => {
  counter += 1;
  server.changed('resource', COUNTER_URI);
  return { content: [{ type: 'text', text: JSON.stringify({ counter, reached: -1 }) }] };
});

const transport = new HttpTransport(server, { path: '/mcp' });
const nodeHandler = toNodeHandler({
  fetch: async (request: Request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }),
});

const listener = http.createServer((req, res) => void nodeHandler(req, res));
const { host, port } = listenAddress('http://127.0.0.1:5105');
listener.listen(port, host, () => {
  serveBenchIpc(
    { port: (listener.address() as AddressInfo).port },
    { notify: (uri) => server.changed('resource', uri), sessionCount: () => 0 },
    () =>
      new Promise<void>((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  );
});
