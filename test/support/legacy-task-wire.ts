/**
 * A 2025-11-25 client of tasks over raw Streamable HTTP, without a GET stream: what it is asked
 * during a task can only come on a `tasks/result` answer stream. Used to check that such a
 * request waits for that stream (on whichever instance it is opened) and is answered there.
 */
import { rawPost } from './raw-http.js';
import { parseSseBlock } from './sse-parse.js';

let nextId = 1;

export interface LegacySession {
  readonly sessionId: string;
  /** A request on `endpoint` (the session's, or another instance's sharing its backend); the JSON answer. */
  rpc(method: string, params: Record<string, unknown>, endpoint?: string): Promise<any>;
  /** Posts a message (a notification, an answer to the server) and returns the HTTP status. */
  post(message: object, endpoint?: string): Promise<number>;
  /** Opens `tasks/result` as an SSE answer and returns its messages one at a time. */
  openResult(taskId: string, endpoint?: string): Promise<{ next(): Promise<any>; close(): void }>;
}

/** `initialize` (declaring elicitation) and `notifications/initialized`, with `headers` on every request. */
export async function legacySession(endpoint: string, headers: Record<string, string> = {}): Promise<LegacySession> {
  const init = await rawPost(
    endpoint,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw-tasks', version: '1.0.0' },
      },
    },
    headers,
  );
  const sessionId = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const sessionHeaders = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  const post = async (message: object, at = endpoint) => (await rawPost(at, message, sessionHeaders)).status;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    sessionId,
    post,
    async rpc(method, params, at = endpoint) {
      const answer = await rawPost(at, { jsonrpc: '2.0', id: nextId++, method, params }, sessionHeaders);
      if (answer.json === undefined) throw new Error(`${method}: HTTP ${answer.status} ${answer.text}`);
      return answer.json;
    },
    async openResult(taskId, at = endpoint) {
      const controller = new AbortController();
      const response = await fetch(at, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...sessionHeaders },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tasks/result', params: { taskId } }),
      });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      const ready: any[] = [];
      let buffer = '';
      return {
        close: () => controller.abort(),
        async next() {
          while (ready.length === 0) {
            let timer: NodeJS.Timeout | undefined;
            const chunk = await Promise.race([
              reader.read(),
              new Promise<never>(
                (_, reject) => (timer = setTimeout(() => reject(new Error('no message within 5000 ms')), 5_000)),
              ),
            ]).finally(() => clearTimeout(timer));
            if (chunk.done) throw new Error('the tasks/result stream ended');
            buffer += decoder.decode(chunk.value, { stream: true });
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const event = parseSseBlock(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
              if (event?.data) ready.push(JSON.parse(event.data));
            }
          }
          return ready.shift();
        },
      };
    },
  };
}
