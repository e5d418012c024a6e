/**
 * An HTTP request on a raw socket whose client stops reading once the answer began (a slow
 * consumer), then drains it on demand: what the server does when its write buffer fills and
 * when the client reads again is then observable byte for byte.
 */
import { connect, type Socket } from 'node:net';

export interface StalledRequest {
  method: string;
  /** Path and query on the server. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Reading stops once the text received so far satisfies this. @default the first bytes */
  pauseWhen?: (received: string) => boolean;
}

export interface StalledStream {
  socket: Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves when the connection closed or the answer ended (the final chunk of a chunked answer). */
  readonly ended: Promise<void>;
  /** Reads again, everything the server sent and sends. */
  drain(): void;
  close(): void;
}

/** Sends the request and resolves once reading has stopped (bounded by `timeoutMs`). */
export function openStalled(port: number, request: StalledRequest, timeoutMs = 5_000): Promise<StalledStream> {
  const { method, path, headers = {}, body, pauseWhen = () => true } = request;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const text = () => Buffer.concat(chunks).toString('utf8');
    let endedResolve!: () => void;
    const ended = new Promise<void>((r) => (endedResolve = r));
    socket.once('close', () => endedResolve());
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${method} ${path}: the answer did not reach the pause point in ${timeoutMs} ms: ${text()}`));
    }, timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    let paused = false;
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-16);
      // The last chunk of a chunked answer: the server ended the stream.
      if (tail.endsWith('\r\n0\r\n\r\n')) endedResolve();
      if (paused || !pauseWhen(text())) return;
      paused = true;
      socket.pause();
      clearTimeout(timer);
      resolve({
        socket,
        received: text,
        ended,
        drain: () => socket.resume(),
        close: () => socket.destroy(),
      });
    });
    const head = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
    for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
    if (body !== undefined) head.push(`Content-Length: ${Buffer.byteLength(body)}`);
    socket.write(`${head.join('\r\n')}\r\n\r\n${body ?? ''}`);
  });
}
