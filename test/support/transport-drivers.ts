/**
 * One request API over every transport of a fixture app, so a spec can run the same assertions
 * on each: Streamable HTTP with a JSON answer, Streamable HTTP with an SSE answer, WebSocket,
 * stdio (in-process pipes) and legacy HTTP+SSE. Each driver initializes its own session.
 */
import type { FixtureApp } from '../fixtures/fixture-app.js';
import { openLegacySse } from './legacy-sse-client.js';
import { openSession, parseSse, rawPost } from './raw-http.js';
import type { StdioPipes } from './stdio-pipes.js';
import { openWs, wsUrl } from './ws-client.js';

export type TransportKind = 'http-json' | 'http-sse' | 'websocket' | 'stdio' | 'legacy-sse';

export const TRANSPORT_KINDS: readonly TransportKind[] = ['http-json', 'http-sse', 'websocket', 'stdio', 'legacy-sse'];

export interface McpDriver {
  readonly kind: TransportKind;
  /**
   * Sends a request with this id and resolves with the JSON-RPC message that answers it. Over
   * HTTP the answer must be a complete 200 (JSON, or an SSE stream for `http-sse`).
   */
  request(id: number, method: string, params?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/**
 * Opens a driver. The app must serve `ws: {}` and `sse: {}` (and the WebSocket adapter) for
 * those kinds, and `stdio` needs the pipes whose override the app was built with.
 */
export async function openDriver(kind: TransportKind, fixture: FixtureApp, pipes?: StdioPipes): Promise<McpDriver> {
  switch (kind) {
    case 'http-json':
    case 'http-sse': {
      const { headers } = await openSession(fixture.endpoint);
      const accept = kind === 'http-json' ? 'application/json' : 'text/event-stream';
      return {
        kind,
        async request(id, method, params) {
          const response = await rawPost(fixture.endpoint, rpc(id, method, params), { ...headers, accept });
          const type = response.headers.get('content-type') ?? '';
          if (response.status !== 200) throw new Error(`${method} answered HTTP ${response.status}: ${response.text}`);
          if (kind === 'http-json') {
            if (!type.startsWith('application/json')) throw new Error(`${method}: not a JSON answer (${type})`);
            return response.json;
          }
          if (!type.startsWith('text/event-stream')) throw new Error(`${method}: not an SSE answer (${type})`);
          const answer = parseSse(response.text)
            .map((event) => JSON.parse(event.data))
            .find((message) => message.id === id);
          if (!answer) throw new Error(`${method}: the SSE answer carries no response for id ${id}: ${response.text}`);
          return answer;
        },
        close: async () => undefined,
      };
    }
    case 'websocket': {
      const ws = await openWs(wsUrl(fixture.origin));
      await ws.initialize();
      return {
        kind,
        async request(id, method, params) {
          const answer = ws.waitFor((m) => m?.id === id && ('result' in m || 'error' in m), 5_000, ws.messages.length);
          answer.catch(() => undefined); // awaited below unless the send fails
          await ws.send(rpc(id, method, params));
          return answer;
        },
        close: async () => void (await ws.close()),
      };
    }
    case 'stdio': {
      if (!pipes) throw new Error('the stdio driver needs the pipes the app was built with');
      await pipes.initialize();
      return { kind, request: (id, method, params) => pipes.request(id, method, params), close: async () => undefined };
    }
    case 'legacy-sse': {
      const legacy = await openLegacySse(fixture.origin);
      await legacy.initialize();
      return {
        kind,
        request: (id, method, params) => legacy.request(id, method, params),
        close: async () => legacy.close(),
      };
    }
  }
}

const rpc = (id: number, method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
