/**
 * A small streaming SSE client over `node:http` for the MCP GET stream, plus a thin raw-HTTP
 * session helper around it.
 *
 * `openSseClient` resolves as soon as the response headers arrive; events are parsed and
 * collected as the bytes come in, and `waitFor` resolves on the first matching event (already
 * received or future) or rejects on timeout, or as soon as the stream ends without one.
 */
import http, { type Agent, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { rawPost, type RawResponse } from './raw-http.js';
import { MessageLog, clip } from './message-log.js';
import { parseSseBlock } from './sse-parse.js';

export interface SseClientEvent {
  /** Position of the event on this stream (0-based). */
  index: number;
  id?: string;
  event?: string;
  data: string;
  /** `data` parsed as JSON, or undefined when it is not JSON. */
  json?: any;
}

export interface SseClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every event received so far, in order (comments and keep-alives are skipped). */
  readonly events: readonly SseClientEvent[];
  /** The body received so far when the answer is not a stream (an error answer). */
  readonly text: string;
  /** Resolves when the stream ends (server end, client close, or connection error). */
  ended: Promise<void>;
  /** True once the stream ended. */
  readonly isEnded: boolean;
  /**
   * Resolves with the first event at position >= `fromIndex` that matches; rejects after
   * `timeoutMs`, or when the stream ends first.
   */
  waitFor(
    predicate: (event: SseClientEvent) => boolean,
    timeoutMs?: number,
    fromIndex?: number,
  ): Promise<SseClientEvent>;
  /** Closes the connection from the client side (idempotent). */
  close(): void;
}

export interface SseClientOptions {
  /** Extra request headers (`mcp-session-id`, `mcp-protocol-version`, ...). */
  headers?: Record<string, string>;
  /** Sent as `Last-Event-ID` when given. */
  lastEventId?: string;
  /** Defaults to a dedicated connection (`agent: false`). */
  agent?: Agent | false;
  /** Rejects when no response headers arrive in time. */
  timeoutMs?: number;
}

/** Opens `GET url` with `Accept: text/event-stream` and reads it incrementally. */
export function openSseClient(url: string, options: SseClientOptions = {}): Promise<SseClient> {
  const { headers = {}, lastEventId, agent = false, timeoutMs = 5_000 } = options;
  const requestHeaders: Record<string, string> = { accept: 'text/event-stream', ...headers };
  if (lastEventId !== undefined) requestHeaders['last-event-id'] = lastEventId;

  return new Promise<SseClient>((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers: requestHeaders, agent });
    let socket: Socket | undefined;
    req.on('socket', (s) => (socket = s));
    const headerTimer = setTimeout(() => {
      req.destroy();
      reject(new Error(`GET ${url}: no response headers within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(headerTimer);
      reject(error);
    });
    req.on('response', (res: IncomingMessage) => {
      clearTimeout(headerTimer);
      const log: MessageLog<SseClientEvent> = new MessageLog('SSE event', (): string => `got ${summarize(log.all())}`);
      let buffer = '';
      let text = '';
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      const finish = (): void => {
        if (log.ended) return;
        log.end('the SSE stream ended');
        endedResolve();
      };
      const isStream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');

      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (!isStream) {
          text += chunk;
          return;
        }
        buffer += chunk.replace(/\r\n?/g, '\n');
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const parsed = parseSseBlock(block);
          if (parsed) log.push({ index: log.length, ...parsed, json: parseJson(parsed.data) });
        }
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);

      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: log.all(),
        get text() {
          return text;
        },
        ended,
        get isEnded() {
          return log.ended;
        },
        waitFor: (predicate, waitMs = 5_000, fromIndex = 0) => log.waitFor(predicate, waitMs, fromIndex),
        close() {
          res.destroy();
          req.destroy();
          socket?.destroy();
          finish();
        },
      };
      resolve(client);
    });
    req.end();
  });
}

/** An event that is the JSON-RPC notification `method` (and, when given, for `uri`). */
export const isNotification =
  (method: string, uri?: string) =>
  (event: SseClientEvent): boolean =>
    event.json?.method === method && (uri === undefined || event.json?.params?.uri === uri);

/** `notifications/resources/updated` for `uri`. */
export const isUpdated = (uri: string) => isNotification('notifications/resources/updated', uri);

/** `notifications/resources/list_changed`. */
export const isListChanged = isNotification('notifications/resources/list_changed');

/** The URIs of the `resources/updated` events among `events`, in order. */
export const updatedUris = (events: readonly SseClientEvent[]): string[] =>
  events.filter(isNotification('notifications/resources/updated')).map((event) => event.json.params.uri as string);

/** A raw HTTP MCP session (initialize + initialized done) with JSON-RPC and stream helpers. */
export interface RawSession {
  sessionId: string;
  /** `mcp-session-id` and `mcp-protocol-version`. */
  headers: Record<string, string>;
  /** Sends one JSON-RPC request and returns the raw answer. */
  request(method: string, params?: Record<string, unknown>): Promise<RawResponse>;
  /** Sends one JSON-RPC request, expects HTTP 200 and returns the JSON-RPC response object. */
  rpc(method: string, params?: Record<string, unknown>): Promise<any>;
  subscribe(uri: string): Promise<any>;
  unsubscribe(uri: string): Promise<any>;
  /** `tools/call` returning the JSON-RPC response. */
  callTool(name: string, args: Record<string, unknown>): Promise<any>;
  /** Opens the session's GET stream. */
  openStream(options?: Omit<SseClientOptions, 'headers'>): Promise<SseClient>;
}

let nextRequestId = 1;

/** Wraps an initialized session (see `openSession` in raw-http.ts). */
export function rawSession(
  endpoint: string,
  session: { sessionId: string; headers: Record<string, string> },
): RawSession {
  const request = (method: string, params?: Record<string, unknown>) =>
    rawPost(
      endpoint,
      params === undefined
        ? { jsonrpc: '2.0', id: nextRequestId++, method }
        : { jsonrpc: '2.0', id: nextRequestId++, method, params },
      session.headers,
    );
  const rpc = async (method: string, params?: Record<string, unknown>) => {
    const response = await request(method, params);
    if (response.status !== 200 || response.json === undefined) {
      throw new Error(`${method} answered HTTP ${response.status}: ${response.text}`);
    }
    return response.json;
  };
  return {
    ...session,
    request,
    rpc,
    subscribe: (uri) => rpc('resources/subscribe', { uri }),
    unsubscribe: (uri) => rpc('resources/unsubscribe', { uri }),
    callTool: (name, args) => rpc('tools/call', { name, arguments: args }),
    openStream: (options = {}) => openSseClient(endpoint, { ...options, headers: session.headers }),
  };
}

/** The JSON object a tool returned, from its first text content (docs/tools.md). */
export function toolJson(response: any): any {
  const result = response?.result;
  if (!result) throw new Error(`expected a tool result, got ${JSON.stringify(response)}`);
  if (result.isError) throw new Error(`the tool failed: ${JSON.stringify(result)}`);
  return JSON.parse(result.content[0].text);
}

function parseJson(data: string): unknown {
  if (!data) return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function summarize(events: readonly SseClientEvent[]): string {
  return clip(JSON.stringify(events.map(({ id, data }) => ({ id, data }))), events.length);
}
