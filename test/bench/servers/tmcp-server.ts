/**
 * `tmcp` (`McpServer` + `@tmcp/transport-http`'s `HttpTransport`) serving the fixtures of
 * fixture-spec.ts: the echo tool (era, echo and memory phases) and the fan-out fixtures (`bump`,
 * `barrier`, `mem://counter` with `resources/subscribe`, sessions with a standalone GET stream).
 * tmcp answers both the 2025 session protocol and the per-request 2026-07-28 one on the same
 * endpoint.
 *
 * How tmcp does what the fan-out needs (read from its sources, tmcp 1.20 / transport-http 0.9 /
 * session-manager 0.3): `resources/subscribe` (capability `resources.subscribe`) records the
 * URI against the session in the transport's `InfoSessionManager`; `server.changed('resource',
 * uri)` broadcasts `notifications/resources/updated`, which the transport sends to the GET
 * streams (`StreamSessionManager`) of the sessions `getSubscriptions(uri)` lists;
 * `server.changed('resources')` sends `resources/list_changed` to every GET stream (the
 * barrier). The session managers are tmcp's own in-memory ones, wrapped here only to count
 * (sessions for the memory phase, streams for error reports); every send still goes through
 * tmcp's code.
 *
 * `reached` in `bump`'s answer is the number of sessions tmcp's session manager lists as
 * subscribed: tmcp's broadcast is asynchronous and reports nothing back.
 *
 * tmcp is schema-agnostic through an adapter that turns a Standard Schema into JSON Schema; no
 * zod adapter is installed, so `ZodAdapter` below does it with zod 4's own `z.toJSONSchema`
 * (validation is the Standard Schema interface zod 4 implements). `HttpTransport.respond` takes
 * a web `Request`; the Node side goes through `toNodeHandler` of `@modelcontextprotocol/node`,
 * the same conversion the SDK v2 server pays.
 */
import { toNodeHandler } from '@modelcontextprotocol/node';
import { InMemoryInfoSessionManager, InMemoryStreamSessionManager } from '@tmcp/session-manager';
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

/**
 * tmcp's in-memory session managers, their methods wrapped to count sessions (initialize adds,
 * DELETE removes) and open GET streams. (Their type declarations mark the methods abstract, so
 * the instances are wrapped instead of subclassed.)
 */
const info = new InMemoryInfoSessionManager();
const streams = new InMemoryStreamSessionManager();
const sessionIds = new Set<string>();
const streamIds = new Set<string>();
const setClientInfo = info.setClientInfo.bind(info);
const deleteInfo = info.delete.bind(info);
info.setClientInfo = (id, clientInfo) => {
  sessionIds.add(id);
  return setClientInfo(id, clientInfo);
};
info.delete = (id) => {
  sessionIds.delete(id);
  return deleteInfo(id);
};
const createStream = streams.create.bind(streams);
const deleteStream = streams.delete.bind(streams);
streams.create = (id, controller) => {
  streamIds.add(id);
  return createStream(id, controller);
};
streams.delete = (id) => {
  streamIds.delete(id);
  return deleteStream(id);
};

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
server.tool({ name: 'bump', description: 'Increments the counter and notifies subscribers.' }, async () => {
  counter += 1;
  const reached = (await info.getSubscriptions(COUNTER_URI)).length;
  server.changed('resource', COUNTER_URI);
  return { content: [{ type: 'text', text: JSON.stringify({ counter, reached }) }] };
});
server.tool({ name: 'barrier', description: 'Sends resources/list_changed to every open stream.' }, () => {
  server.changed('resources');
  return { content: [{ type: 'text', text: JSON.stringify({ reached: streamIds.size }) }] };
});

const transport = new HttpTransport(server, { path: '/mcp', sessionManager: { streams, info } });
const nodeHandler = toNodeHandler({
  fetch: async (request: Request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }),
});

const listener = http.createServer((req, res) => void nodeHandler(req, res));
const { host, port } = listenAddress('http://127.0.0.1:5105');
listener.listen(port, host, () => {
  serveBenchIpc(
    { port: (listener.address() as AddressInfo).port },
    {
      notify: (uri) => server.changed('resource', uri),
      sessionCount: () => sessionIds.size,
      streamCount: () => streamIds.size,
    },
    () =>
      new Promise<void>((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  );
});
