/**
 * The bench's own HTTP client for setup and checks (not for load: autocannon does that): JSON
 * POSTs and DELETEs on a keep-alive pool, and MCP sessions over raw HTTP.
 */
import http from 'node:http';

export const ACCEPT_BOTH = 'application/json, text/event-stream';
export const PROTOCOL_VERSION = '2025-11-25';

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export class BenchHttp {
  readonly agent: http.Agent;

  constructor(
    readonly endpoint: string,
    poolSize = 64,
    private readonly timeoutMs = 30_000,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: poolSize, maxFreeSockets: poolSize });
  }

  /**
   * One request. A keep-alive socket the server closed while it sat in the pool (its idle
   * timeout passing while a loaded machine kept the bench busy elsewhere) fails with ECONNRESET
   * before any answer: that request never reached the server, so it is sent once more on a
   * fresh socket, as Node's documentation recommends.
   */
  async request(method: string, body?: object, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    try {
      return await this.send(method, body, headers);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return this.send(method, body, headers);
    }
  }

  private send(method: string, body: object | undefined, headers: Record<string, string>): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const requestHeaders: Record<string, string | number> = { accept: ACCEPT_BOTH, ...headers };
      if (payload !== undefined) {
        requestHeaders['content-type'] = 'application/json';
        requestHeaders['content-length'] = Buffer.byteLength(payload);
      }
      const req = http.request(this.endpoint, { method, agent: this.agent, headers: requestHeaders });
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`${method} timed out after ${this.timeoutMs} ms`)));
      let answered = false;
      req.on('error', (error: NodeJS.ErrnoException) => {
        const text = `${method} ${this.endpoint}${req.reusedSocket ? ' on a reused keep-alive socket' : ''}: ${error.message}${error.code ? ` (${error.code})` : ''}`;
        const stale = req.reusedSocket && !answered && error.code === 'ECONNRESET';
        reject(stale ? new StaleSocketError(text) : new Error(text));
      });
      req.on('response', (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseAnswer(text) });
        });
      });
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A request that failed on a pooled socket the server had already closed (safe to send again). */
class StaleSocketError extends Error {}

/** A JSON body, or the last `data:` JSON of an SSE answer (the SDK may answer a POST with SSE). */
export function parseAnswer(text: string): any {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim());
    for (let i = data.length - 1; i >= 0; i--) {
      try {
        return JSON.parse(data[i]);
      } catch {
        // not JSON: keep looking
      }
    }
    return undefined;
  }
}

export interface McpSession {
  id: string;
  /** `mcp-session-id` and `mcp-protocol-version`. */
  headers: Record<string, string>;
}

let nextId = 1;

/** `initialize` then `notifications/initialized`; throws on any unexpected answer. */
export async function openSession(client: BenchHttp): Promise<McpSession> {
  const init = await client.request('POST', {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
  });
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string' || !init.json?.result?.protocolVersion) {
    throw new Error(`initialize answered HTTP ${init.status}: ${init.text.slice(0, 200)}`);
  }
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': String(init.json.result.protocolVersion) };
  const initialized = await client.request('POST', { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered HTTP ${initialized.status}`);
  return { id, headers };
}

/** One JSON-RPC request on a session; throws unless it answers 200 with a result. */
export async function rpc(client: BenchHttp, session: McpSession, method: string, params: object): Promise<any> {
  const id = nextId++;
  const answer = await client.request('POST', { jsonrpc: '2.0', id, method, params }, session.headers);
  if (answer.status !== 200 || answer.json?.id !== id || answer.json?.result === undefined) {
    throw new Error(`${method} answered HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  return answer.json.result;
}

/** A tool call whose result is JSON text; returns the parsed text. */
export async function callJsonTool(client: BenchHttp, session: McpSession, name: string): Promise<any> {
  const result = await rpc(client, session, 'tools/call', { name, arguments: {} });
  const text = result?.content?.[0]?.text;
  if (result?.isError || typeof text !== 'string') throw new Error(`${name} failed: ${JSON.stringify(result)}`);
  return JSON.parse(text);
}

/** DELETE /mcp for a session; throws unless 200/204. */
export async function deleteSession(client: BenchHttp, session: McpSession): Promise<void> {
  const answer = await client.request('DELETE', undefined, session.headers);
  if (answer.status !== 204 && answer.status !== 200) throw new Error(`DELETE answered HTTP ${answer.status}`);
}

/**
 * Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; stops at the first
 * failure, and after `timeoutMs` in all.
 */
export async function inPool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
  timeoutMs = 300_000,
): Promise<void> {
  let next = 0;
  let failed: Error | undefined;
  const deadline = Date.now() + timeoutMs;
  const worker = async () => {
    while (failed === undefined && next < count) {
      if (Date.now() > deadline) throw new Error(`pool of ${count} tasks passed ${timeoutMs} ms`);
      const i = next++;
      try {
        await task(i);
      } catch (error) {
        failed ??= error instanceof Error ? error : new Error(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (failed !== undefined) throw failed;
}
