/**
 * A raw client of the legacy HTTP+SSE transport: `GET /sse`, whose first event names the
 * `POST /messages?sessionId=…` endpoint; every POST answers 202 and its response travels on the
 * stream.
 */
import { rawPost, type RawResponse } from './raw-http.js';
import { openSseClient, type SseClient } from './sse-client.js';

export interface LegacySseClient {
  stream: SseClient;
  /** The absolute URL of the `endpoint` event. */
  endpoint: string;
  /** POSTs one message (with more request headers, if any) and returns the raw HTTP answer. */
  post(message: object | string, headers?: Record<string, string>): Promise<RawResponse>;
  /** POSTs a request with this id (expects 202) and resolves with its response from the stream. */
  request(id: number | string, method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<any>;
  /** `initialize` (2024-11-05, the only version of this transport) then `notifications/initialized`. */
  initialize(): Promise<any>;
  close(): void;
}

/** @param headers sent on the GET that opens the stream (an `Authorization`, say). */
export async function openLegacySse(
  origin: string,
  path = '/sse',
  headers: Record<string, string> = {},
): Promise<LegacySseClient> {
  const stream = await openSseClient(`${origin}${path}`, { headers });
  if (stream.status !== 200) throw new Error(`GET ${path} answered ${stream.status}: ${stream.text}`);
  const first = await stream.waitFor(() => true);
  if (first.event !== 'endpoint') throw new Error(`the first event is not 'endpoint': ${JSON.stringify(first)}`);
  const endpoint = new URL(first.data, origin).href;
  const post = (message: object | string, extra: Record<string, string> = {}) =>
    rawPost(endpoint, message, { accept: 'application/json', ...headers, ...extra });
  const request = async (id: number | string, method: string, params?: Record<string, unknown>, timeoutMs = 5_000) => {
    const from = stream.events.length;
    const answered = stream.waitFor((event) => event.json?.id === id, timeoutMs, from);
    answered.catch(() => undefined); // awaited below unless the POST is refused
    const response = await post(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
    );
    if (response.status !== 202) throw new Error(`POST ${method} answered ${response.status}: ${response.text}`);
    return (await answered).json;
  };
  return {
    stream,
    endpoint,
    post,
    request,
    async initialize() {
      const response = await request('init', 'initialize', {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'legacy-sse-client', version: '1.0.0' },
      });
      if (!response.result) throw new Error(`initialize failed: ${JSON.stringify(response)}`);
      const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
      return response;
    },
    close: () => stream.close(),
  };
}
