/**
 * The ways one client message reaches the server, each behind the same `send`: a Streamable HTTP
 * POST of the message alone, the same message as an element of a JSON-RPC batch (on a 2025-03-26
 * session, next to a `ping` that shows the rest of the batch is served), a WebSocket text frame,
 * a stdio line, and a legacy HTTP+SSE `POST /messages`. What comes back is one shape, whatever
 * carried it: the HTTP status (HTTP paths), the JSON-RPC answer to the message, or the close code
 * of a socket that was closed instead.
 */
import { openLegacySse, type LegacySseClient } from './legacy-sse-client.js';
import { initializeRequest, parseSse, rawPost, type RawResponse } from './raw-http.js';
import type { StdioPipes } from './stdio-pipes.js';
import { openWs, wsUrl, type RawWsClient } from './ws-client.js';

export type InboundPathKind = 'http' | 'batch' | 'websocket' | 'stdio' | 'legacy-sse';

export const INBOUND_PATHS: readonly InboundPathKind[] = ['http', 'batch', 'websocket', 'stdio', 'legacy-sse'];

/** What came back for one message. */
export interface InboundOutcome {
  /** The status of the HTTP request that carried the message (HTTP paths). */
  readonly status?: number;
  readonly headers?: Headers;
  /**
   * The JSON-RPC answer: the message's own response, or the error that refused the whole
   * request that carried it (id null). Undefined when nothing answered (a closed socket).
   */
  readonly answer?: any;
  /** The close code, when the server closed the WebSocket instead of answering. */
  readonly closed?: number;
}

/** A JSON-RPC request with its id, as the tests build it. */
export interface InboundRequest {
  readonly jsonrpc: string;
  readonly id: number;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

export interface InboundPath {
  readonly kind: InboundPathKind;
  /**
   * Sends `message` as this path carries one; `headers` are added to the HTTP request that
   * carries it (HTTP paths; a WebSocket frame or a stdio line has none of its own).
   */
  send(message: InboundRequest, headers?: Record<string, string>): Promise<InboundOutcome>;
  close(): Promise<void>;
}

export interface InboundTarget {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The Streamable HTTP endpoint. */
  readonly endpoint: string;
  /** The app's stdio pipes (the stdio path only). */
  readonly pipes?: StdioPipes;
  /** Headers of every HTTP request and of the WebSocket upgrade (an `Authorization`, say). */
  readonly headers?: Record<string, string>;
}

/** The companion of a batch element: its answer shows that the rest of the batch was served. */
const COMPANION_ID = 'batch-companion';

/** Opens a path: a session (or connection) of its own, initialized; stdio shares the app's one. */
export async function openInboundPath(kind: InboundPathKind, target: InboundTarget): Promise<InboundPath> {
  const base = target.headers ?? {};
  switch (kind) {
    case 'http': {
      const session = await httpSession(target.endpoint, '2025-11-25', base);
      return {
        kind,
        send: async (message, headers = {}) =>
          fromHttp(await rawPost(target.endpoint, message, { ...session, ...headers })),
        close: async () => undefined,
      };
    }
    case 'batch': {
      // Batches exist on 2025-03-26 sessions only.
      const session = await httpSession(target.endpoint, '2025-03-26', base);
      return {
        kind,
        async send(message, headers = {}) {
          const companion = { jsonrpc: '2.0', id: COMPANION_ID, method: 'ping' };
          const response = await rawPost(target.endpoint, [message, companion], { ...session, ...headers });
          if (!Array.isArray(response.json)) return fromHttp(response);
          const answers = response.json;
          const served = answers.find((answer) => answer.id === COMPANION_ID);
          if (!served?.result) throw new Error(`the rest of the batch was not served: ${response.text}`);
          return {
            status: response.status,
            headers: response.headers,
            answer: answers.find((a) => a.id === message.id),
          };
        },
        close: async () => undefined,
      };
    }
    case 'websocket': {
      const ws: RawWsClient = await openWs(wsUrl(target.origin), { headers: base });
      await ws.initialize();
      return {
        kind,
        async send(message) {
          const from = ws.messages.length;
          await ws.send(message);
          // The wait fails when the socket closes first: then the close is the outcome.
          return ws
            .waitFor((m) => m?.id === message.id || (m?.id === null && 'error' in m), 5_000, from)
            .then(
              (answer): InboundOutcome => ({ answer }),
              async (error: unknown): Promise<InboundOutcome> => {
                if (!ws.isClosed) throw error;
                return { closed: (await ws.closed).code };
              },
            );
        },
        close: async () => void (await ws.close()),
      };
    }
    case 'stdio': {
      const pipes = target.pipes;
      if (!pipes) throw new Error('the stdio path needs the pipes the app was built with');
      return {
        kind,
        async send(message) {
          const from = pipes.messages.length;
          pipes.send(message);
          const answer = await pipes.waitFor(
            (m) => m?.id === message.id || (m?.id === null && 'error' in m),
            5_000,
            from,
          );
          return { answer };
        },
        close: async () => undefined,
      };
    }
    case 'legacy-sse': {
      const legacy: LegacySseClient = await openLegacySse(target.origin, '/sse', base);
      await legacy.initialize();
      return {
        kind,
        async send(message, headers = {}) {
          const from = legacy.stream.events.length;
          const response = await legacy.post(message, headers);
          if (response.status !== 202) return fromHttp(response);
          const event = await legacy.stream.waitFor(
            (e) => e.json?.id === message.id || (e.json?.id === null && 'error' in e.json),
            5_000,
            from,
          );
          return { status: response.status, headers: response.headers, answer: event.json };
        },
        close: async () => legacy.close(),
      };
    }
  }
}

/** Initializes a Streamable HTTP session; resolves with the headers of its later requests. */
async function httpSession(
  endpoint: string,
  protocolVersion: string,
  base: Record<string, string>,
): Promise<Record<string, string>> {
  const response = await rawPost(endpoint, initializeRequest('init', protocolVersion), base);
  const sessionId = response.headers.get('mcp-session-id');
  if (response.status !== 200 || !sessionId) throw new Error(`initialize failed: ${response.status} ${response.text}`);
  const headers = { ...base, 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion };
  const initialized = await rawPost(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return headers;
}

/** An HTTP answer: JSON, or the response in an SSE body. */
function fromHttp(response: RawResponse): InboundOutcome {
  let answer = response.json;
  if (answer === undefined && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    answer = parseSse(response.text)
      .map((event) => JSON.parse(event.data))
      .find((message) => 'result' in message || 'error' in message);
  }
  return { status: response.status, headers: response.headers, answer };
}
