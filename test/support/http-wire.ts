/**
 * Low-level HTTP helpers for wire tests that `fetch` cannot express: arbitrary `Host`/`Origin`
 * headers, no `Accept` header at all, bodies written in several TCP writes, oversized or chunked
 * bodies, and SSE streams read event by event while they are open.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import net, { type Socket } from 'node:net';
import { ACCEPT_BOTH } from './raw-http.js';
import { MessageLog } from './message-log.js';
import { parseSseBlock } from './sse-parse.js';

export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: any;
}

export interface WireRequestOptions {
  method?: string;
  /** Sent exactly as given (nothing is added apart from what Node itself needs). */
  headers?: Record<string, string | number>;
  /** A body written in one go. */
  body?: string | Buffer;
  /**
   * A body written in several writes; each write waits until the previous one has been handed to
   * the socket, so the server receives the pieces as separate chunks.
   */
  chunks?: Buffer[];
  /** Fails the request when no complete answer arrives in time (a guard, not a delay). */
  timeoutMs?: number;
}

/** Sends one request on a fresh connection and reads the whole answer. */
export function wireRequest(url: string, options: WireRequestOptions = {}): Promise<WireResponse> {
  const { method = 'POST', headers = {}, body, chunks, timeoutMs = 10_000 } = options;
  return new Promise<WireResponse>((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, setHost: !hasHeader(headers, 'host') });
    const timer = setTimeout(() => {
      req.destroy(new Error(`${method} ${url}: no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      collect(res).then(
        (response) => {
          clearTimeout(timer);
          resolve(response);
        },
        (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
    if (chunks) {
      void writeInOrder(req, chunks).then(
        () => req.end(),
        (error: Error) => req.destroy(error),
      );
    } else {
      req.end(body);
    }
  });
}

/**
 * Streams a body of `totalBytes` (JSON-looking filler) and stops writing as soon as the server
 * answers. Used for bodies over the limit: the server must answer before it has read them whole.
 */
export function wireOversizedPost(
  url: string,
  totalBytes: number,
  headers: Record<string, string | number>,
  { declareLength, timeoutMs = 15_000 }: { declareLength: boolean; timeoutMs?: number },
): Promise<WireResponse & { bytesWritten: number }> {
  return new Promise((resolve, reject) => {
    const allHeaders: Record<string, string | number> = { ...headers };
    if (declareLength) allHeaders['content-length'] = totalBytes;
    else allHeaders['transfer-encoding'] = 'chunked';
    const req = http.request(url, { method: 'POST', headers: allHeaders, agent: false });
    let answered = false;
    let bytesWritten = 0;
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer to an oversized body within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (error) => {
      // The server may close the connection while the rest of the body is still being written.
      if (!answered) {
        clearTimeout(timer);
        reject(error);
      }
    });
    req.on('response', (res) => {
      answered = true;
      collect(res).then(
        (response) => {
          clearTimeout(timer);
          resolve({ ...response, bytesWritten });
          req.destroy();
        },
        (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
    const piece = Buffer.alloc(64 * 1024, 0x20); // spaces: still "JSON whitespace" if it were ever parsed
    piece[0] = 0x7b; // '{'
    const pump = (): void => {
      while (!answered && bytesWritten < totalBytes && !req.destroyed) {
        const size = Math.min(piece.length, totalBytes - bytesWritten);
        bytesWritten += size;
        if (!req.write(piece.subarray(0, size))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered && bytesWritten >= totalBytes && !req.destroyed) req.end();
    };
    pump();
  });
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** An open SSE response (GET stream or POST stream) read incrementally. */
export interface OpenSse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Events received so far (comments and keep-alives are skipped). */
  readonly events: readonly SseEvent[];
  /** Resolves when the server ends the stream (or the connection closes). */
  ended: Promise<void>;
  /** Waits for the first event (already received or future) that matches; rejects if the stream ends first. */
  waitForEvent(predicate: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Closes the connection from the client side. */
  close(): void;
}

/**
 * Opens a GET (or any request) whose answer is expected to be an SSE stream. Resolves as soon as
 * the response headers arrive; rejects if they do not arrive within `timeoutMs`.
 */
export function openSse(
  url: string,
  {
    method = 'GET',
    headers = {},
    body,
    timeoutMs = 5_000,
    localAddress,
  }: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeoutMs?: number;
    /** The client address to send from (any 127.x.y.z reaches a server on 127.0.0.1). */
    localAddress?: string;
  } = {},
): Promise<OpenSse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, localAddress });
    let socket: Socket | undefined;
    req.on('socket', (s) => (socket = s));
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${method} ${url}: no response headers within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res: IncomingMessage) => {
      clearTimeout(timer);
      const log = new MessageLog<SseEvent>('SSE event');
      let buffer = '';
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      const finish = (): void => {
        log.end('the SSE stream ended');
        endedResolve();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk.replace(/\r\n/g, '\n');
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event = parseSseBlock(block);
          if (event) log.push(event);
        }
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: log.all(),
        ended,
        waitForEvent: (predicate, waitMs = 5_000) => log.waitFor(predicate, waitMs),
        close() {
          res.destroy();
          req.destroy();
          socket?.destroy();
        },
      });
    });
    req.end(body);
  });
}

/** Resolves when `promise` settles, or rejects after `ms` with `what` in the message. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Headers of a well-formed MCP POST, plus the given ones. */
export const mcpPostHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  'content-type': 'application/json',
  accept: ACCEPT_BOTH,
  ...extra,
});

/** A JSON-RPC request object. */
export const rpc = (id: string | number, method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

async function collect(res: IncomingMessage): Promise<WireResponse> {
  const parts: Buffer[] = [];
  for await (const chunk of res) parts.push(chunk as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 0, headers: res.headers, text, json };
}

async function writeInOrder(req: http.ClientRequest, chunks: Buffer[]): Promise<void> {
  // Writes made before the socket connects are coalesced into one segment: wait for it first.
  await new Promise<void>((resolve) => {
    const whenConnected = (socket: Socket) => (socket.connecting ? socket.once('connect', () => resolve()) : resolve());
    if (req.socket) whenConnected(req.socket);
    else req.once('socket', whenConnected);
  });
  for (const chunk of chunks) {
    await new Promise<void>((resolve, reject) => req.write(chunk, (error) => (error ? reject(error) : resolve())));
    // Not a delay: one full event-loop turn (timers, poll, check), so that a server in this
    // process reads this piece in its poll phase before the next piece is written.
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function hasHeader(headers: Record<string, unknown>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

/**
 * Writes `head` (request line and headers, CRLF-separated, without the blank line) and `body`
 * byte for byte on a plain TCP socket, bypassing every client-side header check, and returns the
 * status code of the answer (0 if the server closed the connection without answering).
 */
export function rawSocketStatus(
  origin: string,
  head: string,
  body = '',
  timeoutMs = 5_000,
): Promise<{ status: number; raw: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let raw = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer on the raw socket within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      resolve({ status: match ? Number(match[1]) : 0, raw });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      // One complete answer is enough: stop once the head and the declared body are in.
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd !== -1) {
        const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, headEnd));
        if (!length || raw.length - headEnd - 4 >= Number(length[1])) {
          socket.destroy();
          finish();
        }
      }
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (raw) finish();
      else reject(error);
    });
    const bodyBytes = Buffer.from(body, 'utf8');
    socket.write(
      Buffer.concat([
        Buffer.from(`${head}\r\nContent-Length: ${bodyBytes.length}\r\nConnection: close\r\n\r\n`, 'latin1'),
        bodyBytes,
      ]),
    );
  });
}
