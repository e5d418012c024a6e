import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { DEFAULT_KEEP_ALIVE_MS } from '../../mcp.constants.js';

/** Tuning of one {@link SseStream}. */
export interface SseStreamOptions {
  /** Interval of `: keepalive` comments; 0 disables them. Default {@link DEFAULT_KEEP_ALIVE_MS}. */
  keepAliveMs?: number;
  /**
   * Largest amount of unsent data (`res.writableLength`) tolerated after a write before the client counts as
   * a slow consumer and the stream is closed. This includes a burst written within one tick (Node corks the
   * socket until the next tick), so keep it above the largest burst sent at once.
   * Default {@link DEFAULT_SSE_MAX_BUFFERED_BYTES}.
   */
  maxBufferedBytes?: number;
  /**
   * After the server ends the stream, how long the socket may take to send what is still buffered before the
   * connection is destroyed, so a client that never reads cannot pin it. Default {@link DEFAULT_SSE_END_TIMEOUT_MS}.
   */
  endTimeoutMs?: number;
}

/** Why a stream closed: `close()` was called, the response closed underneath (client gone), or the client was too slow. */
export type SseCloseReason = 'server' | 'client' | 'slow-consumer';

/** Default {@link SseStreamOptions.maxBufferedBytes}: 1 MiB. */
export const DEFAULT_SSE_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Default {@link SseStreamOptions.endTimeoutMs}. */
export const DEFAULT_SSE_END_TIMEOUT_MS = 5_000;
/** The reconnection delay suggested to a client dropped for being slow. */
export const SLOW_CONSUMER_RETRY_MS = 1_000;

const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  // Stops nginx from buffering the stream.
  'X-Accel-Buffering': 'no',
};
const KEEP_ALIVE_FRAME = ': keepalive\n\n';
// Node clamps larger timer delays to 1 ms, which would turn a keep-alive into a busy loop.
const MAX_TIMER_MS = 2 ** 31 - 1;

function assertMs(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new RangeError(`${name} must be an integer between 0 and ${MAX_TIMER_MS}, got ${String(value)}`);
  }
}

function assertEventId(eventId: string): void {
  // A line break would end the field early; the SSE spec makes clients ignore ids containing NUL.
  if (typeof eventId !== 'string' || eventId === '' || /[\r\n\0]/.test(eventId)) {
    throw new RangeError('An SSE event id must be a non-empty string without CR, LF or NUL');
  }
}

/**
 * One Server-Sent Events response of the Streamable HTTP transport.
 *
 * Every write after the stream closed returns false and never throws. `send` returning false means the stream
 * is closed now; the message itself may still reach the client, and the session's replay buffer lets the client
 * resume with `Last-Event-ID` either way.
 */
export class SseStream {
  readonly #res: ServerResponse;
  readonly #keepAliveMs: number;
  readonly #maxBufferedBytes: number;
  readonly #endTimeoutMs: number;
  #opened = false;
  #closeReason: SseCloseReason | undefined;
  #keepAliveTimer: NodeJS.Timeout | undefined;
  #closeCallbacks: Array<(reason: SseCloseReason) => void> = [];

  /**
   * Wraps `res` without writing anything yet. Throws RangeError for invalid options.
   * A response that is already destroyed or ended gives a stream that is closed from the start.
   */
  constructor(res: ServerResponse, options: SseStreamOptions = {}) {
    const {
      keepAliveMs = DEFAULT_KEEP_ALIVE_MS,
      maxBufferedBytes = DEFAULT_SSE_MAX_BUFFERED_BYTES,
      endTimeoutMs = DEFAULT_SSE_END_TIMEOUT_MS,
    } = options;
    assertMs('keepAliveMs', keepAliveMs);
    assertMs('endTimeoutMs', endTimeoutMs);
    if (!Number.isSafeInteger(maxBufferedBytes) || maxBufferedBytes <= 0) {
      throw new RangeError(`maxBufferedBytes must be a positive integer, got ${String(maxBufferedBytes)}`);
    }
    this.#res = res;
    this.#keepAliveMs = keepAliveMs;
    this.#maxBufferedBytes = maxBufferedBytes;
    this.#endTimeoutMs = endTimeoutMs;

    if (res.destroyed || res.writableEnded) {
      this.#closeReason = res.destroyed ? 'client' : 'server';
      return;
    }
    res.once('close', this.#onResponseClose);
    res.on('error', this.#onResponseError);
  }

  /** True once the stream is closed, for whatever reason. */
  get closed(): boolean {
    return this.#closeReason !== undefined;
  }

  /**
   * Sends status 200 with the SSE headers (which win over `extraHeaders` and earlier `setHeader` calls of the
   * same name) and flushes them, so the client sees the stream open before the first event.
   * Returns false, writing nothing, when the stream is already closed. Throws if called twice or after the
   * response headers were sent elsewhere.
   */
  open(extraHeaders: OutgoingHttpHeaders = {}): boolean {
    if (this.#opened) throw new Error('SseStream.open() was already called');
    if (this.closed) return false;
    const res = this.#res;
    if (res.headersSent) throw new Error('Cannot open an SSE stream: the response headers were already sent');
    // setHeader, not writeHead(status, headers): it replaces names case-insensitively instead of sending duplicates.
    for (const [name, value] of Object.entries(extraHeaders)) {
      if (value !== undefined) res.setHeader(name, value);
    }
    for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
    res.writeHead(200);
    res.flushHeaders();
    this.#opened = true;
    if (this.#keepAliveMs > 0) {
      this.#keepAliveTimer = setInterval(() => this.#write(KEEP_ALIVE_FRAME), this.#keepAliveMs);
      this.#keepAliveTimer.unref();
    }
    return true;
  }

  /**
   * Writes one serialized JSON-RPC message as an `event: message` event, with an `id:` line when
   * `eventId` is given. `JSON.stringify` escapes CR and LF, so the payload fits on one data line.
   * Returns false when the stream is (or just became) closed. Throws, while open, for an invalid
   * `eventId` or a stream that was never opened.
   */
  send(json: string, eventId?: string): boolean {
    if (this.closed) return false;
    this.#assertOpened();
    if (eventId !== undefined) assertEventId(eventId);
    const idLine = eventId === undefined ? '' : `id: ${eventId}\n`;
    return this.#write(`${idLine}event: message\ndata: ${json}\n\n`);
  }

  /**
   * Writes a named event with a one-line text payload (the legacy SSE transport's `endpoint`
   * event). Throws for names or data that would break the framing.
   */
  sendEvent(event: string, data: string): boolean {
    if (this.closed) return false;
    this.#assertOpened();
    if (!/^[A-Za-z0-9_.-]+$/.test(event) || /[\r\n]/.test(data)) throw new RangeError('Invalid SSE event name or data');
    return this.#write(`event: ${event}\ndata: ${data}\n\n`);
  }

  /** True once `open()` wrote the headers. */
  get opened(): boolean {
    return this.#opened;
  }

  /**
   * Ends the response and stops the keep-alive. Idempotent. With `retryMs`, a `retry:` field tells the client
   * when to reconnect (a graceful shutdown). On a stream that was never opened the response is left untouched,
   * so the caller can still answer it otherwise.
   */
  close(retryMs?: number): void {
    this.#close('server', retryMs === undefined ? undefined : `retry: ${Math.max(0, Math.floor(retryMs))}\n\n`);
  }

  /**
   * Registers `callback` to run once when the stream closes, whoever closes it. Runs it at once if the stream
   * is already closed. Callbacks run synchronously, in registration order; one that throws does not stop the
   * others, and its error is rethrown in a microtask.
   */
  onClose(callback: (reason: SseCloseReason) => void): void {
    if (this.#closeReason !== undefined) callback(this.#closeReason);
    else this.#closeCallbacks.push(callback);
  }

  #assertOpened(): void {
    if (!this.#opened) throw new Error('SseStream.open() must be called before writing');
  }

  #write(frame: string): boolean {
    if (this.closed) return false;
    const res = this.#res;
    // 'close' may not have been emitted yet although the response is already unusable.
    if (res.destroyed || res.writableEnded) {
      this.#close('client');
      return false;
    }
    const flowing = res.write(frame);
    // The backlog can only pass a cap above the high-water mark once write() signals it.
    if (
      (!flowing || this.#maxBufferedBytes < res.writableHighWaterMark) &&
      res.writableLength > this.#maxBufferedBytes
    ) {
      this.#close('slow-consumer', `retry: ${SLOW_CONSUMER_RETRY_MS}\n\n`);
      return false;
    }
    return true;
  }

  #close(reason: SseCloseReason, finalFrame?: string): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    clearInterval(this.#keepAliveTimer);
    this.#keepAliveTimer = undefined;

    const res = this.#res;
    if (this.#opened && reason !== 'client' && !res.destroyed && !res.writableEnded) {
      const socket = res.socket;
      if (finalFrame === undefined) res.end();
      else res.end(finalFrame);
      if (socket) {
        // The response's 'finish' and 'close' only mean the data reached the socket's buffer, not the client,
        // so the socket itself is what has to drain.
        const timer = setTimeout(() => {
          if (!socket.destroyed && socket.writableLength > 0) socket.destroy();
        }, this.#endTimeoutMs);
        timer.unref();
      }
    }

    const callbacks = this.#closeCallbacks;
    this.#closeCallbacks = [];
    for (const callback of callbacks) {
      try {
        callback(reason);
      } catch (error) {
        // Keeps the other callbacks running and send()/close() from throwing, while the bug still surfaces
        // as an uncaught exception, like a throwing event listener would.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  readonly #onResponseClose = (): void => {
    this.#res.off('error', this.#onResponseError);
    this.#close('client');
  };

  readonly #onResponseError = (): void => {
    // Without a listener the error would be unhandled; the connection is unusable either way.
    this.#close('client');
    this.#res.destroy();
  };
}
