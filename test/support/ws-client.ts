/**
 * A raw WebSocket client (the `ws` package) for wire tests of the `/ws` transport: one JSON-RPC
 * message per text frame, every frame received kept in order, waits on frames and on the close
 * instead of sleeping. Also installs `ws` as the global `WebSocket` for the official SDK client.
 */
import { WebSocket, type ClientOptions, type RawData } from 'ws';
import { MessageLog } from './message-log.js';

/** The subprotocol of MCP over WebSocket (the SDK's `WebSocketClientTransport` asks for it). */
export const MCP_SUBPROTOCOL = 'mcp';

/** `http://127.0.0.1:<port>` → `ws://127.0.0.1:<port>/ws`. */
export const wsUrl = (origin: string, path = '/ws'): string => `${origin.replace(/^http/, 'ws')}${path}`;

/**
 * The SDK's `WebSocketClientTransport` does `new WebSocket(url, 'mcp')` on the *global*
 * `WebSocket`, which Node 20 does not have (it became a stable global only in Node 22). The
 * `ws` client implements the part of the browser API the SDK uses (`onopen`, `onmessage` with
 * text frames as strings, `onerror` with `.error`, `onclose`, `send`, `close`), so it stands in.
 * Call this before connecting an SDK client; a native global (Node 22+) is left as it is.
 */
export function installGlobalWebSocket(): void {
  const scope = globalThis as { WebSocket?: unknown };
  if (scope.WebSocket === undefined) scope.WebSocket = WebSocket;
}

export interface WsClosed {
  code: number;
  reason: string;
}

export interface RawWsClient {
  socket: WebSocket;
  /** Every text frame received, parsed as JSON (a frame that is not JSON is kept as `{ unparsed }`). */
  readonly messages: readonly any[];
  /** Resolves when the socket closes, with the close code the client saw. */
  closed: Promise<WsClosed>;
  readonly isClosed: boolean;
  /** Sends one frame exactly as given. */
  sendRaw(data: string | Buffer, options?: { binary?: boolean }): Promise<void>;
  /** Sends one JSON-RPC message as one text frame. */
  send(message: object): Promise<void>;
  /** Sends a request with a fresh id and resolves with the response carrying that id. */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<any>;
  /** `initialize` then `notifications/initialized`; resolves with the initialize response. */
  initialize(protocolVersion?: string): Promise<any>;
  /**
   * The first message at position >= `fromIndex` that matches (already received or future);
   * rejects after `timeoutMs`, or as soon as the socket closes without one.
   */
  waitFor(predicate: (message: any) => boolean, timeoutMs?: number, fromIndex?: number): Promise<any>;
  /** Closes from the client side and resolves once the socket is closed (bounded). */
  close(): Promise<WsClosed>;
}

export interface OpenWsOptions {
  /** Requested subprotocols (default `['mcp']`). */
  protocols?: string[];
  /** Extra upgrade request headers (`origin`, `mcp-session-id`, `host`, ...). */
  headers?: Record<string, string>;
  /** Rejects when the handshake does not complete in time. */
  timeoutMs?: number;
  /** Passed to the `ws` client (e.g. `maxPayload` for the client's own receive limit). */
  clientOptions?: ClientOptions;
}

let nextId = 1;

/** Opens a WebSocket and resolves once the handshake succeeded; rejects on any refusal. */
export function openWs(url: string, options: OpenWsOptions = {}): Promise<RawWsClient> {
  const { protocols = [MCP_SUBPROTOCOL], headers = {}, timeoutMs = 5_000, clientOptions = {} } = options;
  return new Promise<RawWsClient>((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { ...clientOptions, headers });
    const log = new MessageLog<any>('WebSocket message');
    let closedResolve!: (closed: WsClosed) => void;
    const closed = new Promise<WsClosed>((r) => (closedResolve = r));

    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`WebSocket ${url}: no handshake within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      res.resume();
      socket.terminate();
      reject(new Error(`WebSocket ${url}: the upgrade was refused with HTTP ${res.statusCode}`));
    });
    // Errors after the handshake (e.g. the server closing with an error code) surface as `close`.
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const text = rawText(data);
      let message: any;
      try {
        message = isBinary ? { unparsed: text, binary: true } : JSON.parse(text);
      } catch {
        message = { unparsed: text };
      }
      log.push(message);
    });
    socket.on('close', (code: number, reason: Buffer) => {
      log.end('the WebSocket closed');
      closedResolve({ code, reason: reason.toString('utf8') });
    });
    socket.once('open', () => {
      clearTimeout(timer);
      const sendRaw = (data: string | Buffer, sendOptions: { binary?: boolean } = {}) =>
        new Promise<void>((resolveSend, rejectSend) =>
          socket.send(data, { binary: sendOptions.binary ?? Buffer.isBuffer(data) }, (error) =>
            error ? rejectSend(error) : resolveSend(),
          ),
        );
      const waitFor = (predicate: (message: any) => boolean, waitMs = 5_000, fromIndex = 0): Promise<any> =>
        log.waitFor(predicate, waitMs, fromIndex);
      const send = (message: object) => sendRaw(JSON.stringify(message), { binary: false });
      const request = async (method: string, params?: Record<string, unknown>, waitMs = 5_000) => {
        const id = nextId++;
        const from = log.length;
        const answer = waitFor((m) => m?.id === id && ('result' in m || 'error' in m), waitMs, from);
        await send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
        return answer;
      };
      resolve({
        socket,
        messages: log.all(),
        closed,
        get isClosed() {
          return log.ended;
        },
        sendRaw,
        send,
        request,
        async initialize(protocolVersion = '2025-11-25') {
          const response = await request('initialize', {
            protocolVersion,
            capabilities: {},
            clientInfo: { name: 'raw-ws-test', version: '1.0.0' },
          });
          if (!response.result) throw new Error(`initialize over WebSocket failed: ${JSON.stringify(response)}`);
          await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          return response;
        },
        waitFor,
        async close() {
          if (!log.ended) {
            socket.close(1000);
            const guard = setTimeout(() => socket.terminate(), 2_000);
            await closed;
            clearTimeout(guard);
          }
          return closed;
        },
      });
    });
  });
}

/**
 * Attempts an upgrade that is expected to be refused; resolves with the HTTP status of the
 * refusal (`unexpected-response`), rejects if the handshake succeeds or nothing answers.
 */
export function refusedUpgradeStatus(url: string, headers: Record<string, string>, timeoutMs = 5_000): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const socket = new WebSocket(url, [MCP_SUBPROTOCOL], { headers });
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`WebSocket ${url}: no answer to the upgrade within ${timeoutMs} ms`));
    }, timeoutMs);
    // After `terminate()` on a refused handshake `ws` emits an error; it is expected here.
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      resolve(res.statusCode ?? 0);
      res.resume();
      socket.terminate();
    });
    socket.once('open', () => {
      clearTimeout(timer);
      socket.terminate();
      reject(new Error(`WebSocket ${url}: the upgrade was accepted (expected a refusal)`));
    });
  });
}

/** A JSON-RPC notification `method` (and, when given, for `uri`). */
export const isNotificationMessage =
  (method: string, uri?: string) =>
  (message: any): boolean =>
    message?.method === method && message?.id === undefined && (uri === undefined || message?.params?.uri === uri);

/** `notifications/resources/updated` for `uri`. */
export const isUpdatedMessage = (uri: string) => isNotificationMessage('notifications/resources/updated', uri);

/** The URIs of the `notifications/resources/updated` among `messages`, in order. */
export const updatedUrisOf = (messages: readonly any[]): string[] =>
  messages.filter(isNotificationMessage('notifications/resources/updated')).map((m) => m.params.uri as string);

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
