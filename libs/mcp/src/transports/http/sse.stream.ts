import { ServerResponse, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_KEEP_ALIVE_MS } from '../../mcp.constants.js';
import { StreamBacklog } from '../connection/stream-backlog.js';

/** Tuning of one {@link SseStream}. */
export interface SseStreamOptions {
  /** Interval of `: keepalive` comments; 0 disables them. Default {@link DEFAULT_KEEP_ALIVE_MS}. */
  keepAliveMs?: number;
  /**
   * Largest amount of unsent data (`res.writableLength`) tolerated after a write, not counting the one message
   * that took the backlog over it, before the client counts as a slow consumer and the stream is closed (see
   * {@link StreamBacklog}). This includes a burst written within one tick (Node corks the socket until the next
   * tick), so keep it above the largest burst of small messages sent at once.
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
/** The SSE header names, lower-cased, for the headers of `open()` that they replace. */
const SSE_HEADER_NAMES = new Set(Object.keys(SSE_HEADERS).map((name) => name.toLowerCase()));
const KEEP_ALIVE_FRAME = ': keepalive\n\n';
/** Where a response keeps the stream that wraps it, for the listeners all streams share. */
const STREAM_OF = Symbol('SseStream');
type StreamResponse = ServerResponse & { [STREAM_OF]?: SseStream };
// Node clamps larger timer delays to 1 ms, which would turn a keep-alive into a busy loop.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Node's key of the headers a response keeps (`getHeader`), once seen on a response. */
let outHeadersKey: symbol | undefined;

/**
 * The headers of an opening stream as one list for `writeHead`, which Node sends without keeping
 * them: kept, they are an object (a dictionary) and two arrays per header, about 1 KB as long as
 * the stream lives, and nobody reads a stream's response headers once they are on the wire. The
 * headers set before (`setHeader`, e.g. Express's `X-Powered-By`) are in the list, and dropped
 * from the response, unless a name in `extraHeaders` or the SSE headers replaces them.
 * Undefined, to set them one by one, when `writeHead` is not Node's own (a middleware that wraps
 * it reads and writes headers around it) or the response's header store cannot be found.
 */
function headerList(res: ServerResponse, extraHeaders: OutgoingHttpHeaders): unknown[] | undefined {
  if (res.writeHead !== ServerResponse.prototype.writeHead) return undefined;
  // Names as they were set (Node has it since 15.13; @types/node does not declare it).
  const earlier = (res as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames();
  if (earlier.length > 0) {
    outHeadersKey ??= Object.getOwnPropertySymbols(res).find((key) => key.description === 'kOutHeaders');
    const store = outHeadersKey && (res as unknown as Record<symbol, unknown>)[outHeadersKey];
    if (typeof store !== 'object' || store === null) return undefined;
  }
  const list: unknown[] = [];
  const seen = new Set<string>(SSE_HEADER_NAMES);
  const extra = Object.entries(extraHeaders).filter(([, value]) => value !== undefined);
  for (const [name] of extra) seen.add(name.toLowerCase());
  for (const name of earlier) {
    if (!seen.has(name.toLowerCase())) list.push(name, res.getHeader(name));
  }
  seen.clear();
  for (const [name, value] of extra) {
    const lower = name.toLowerCase();
    if (SSE_HEADER_NAMES.has(lower) || seen.has(lower)) continue;
    seen.add(lower);
    list.push(name, value);
  }
  for (const [name, value] of Object.entries(SSE_HEADERS)) list.push(name, value);
  // writeHead takes the list as it is only when no header is kept.
  if (earlier.length > 0) (res as unknown as Record<symbol, unknown>)[outHeadersKey!] = null;
  return list;
}

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
 * The response's own socket, when the stream's events may be written to it directly: the
 * headers went out on it, nothing of the response waits in the response's own buffer, and
 * nobody replaced `res.write` (a compression or logging middleware that wraps it keeps its
 * place). Undefined otherwise: the events then go through `res.write`.
 */
function ownedSocket(res: ServerResponse): Socket | undefined {
  const socket = res.socket;
  if (!socket || socket.destroyed || !socket.writable) return undefined;
  if (res.write !== ServerResponse.prototype.write || res.req?.method === 'HEAD') return undefined;
  // writableLength is the response's own buffer plus the socket's: equal means the headers reached the socket.
  if (res.writableLength !== socket.writableLength) return undefined;
  return socket;
}

/**
 * One Server-Sent Events response of the Streamable HTTP transport.
 *
 * Every write after the stream closed returns false and never throws. `send` returning false means the stream
 * is closed now; the message itself may still reach the client, and the session's replay buffer lets the client
 * resume with `Last-Event-ID` either way.
 *
 * Once open, events are written to the response's socket directly, framed as HTTP chunks when the response is
 * chunked, rather than through `res.write`: the response object behind a Nest controller is Express's (its
 * prototype swapped at run time, so every property read on it is a slow lookup), and `res.write` reads a dozen
 * of them and schedules one `nextTick` per write to uncork the socket. A fan-out writes one event to each of
 * thousands of streams in one turn, so that cost was paid thousands of times; writing to the socket makes the
 * controller mount cost what the direct mount does. What `res.write` guaranteed is kept: the socket is corked
 * on a stream's first write in a turn and uncorked on the next tick (for all the streams written in the turn
 * at once), so a burst written within one turn is still counted against `maxBufferedBytes`. Ending the
 * response (`close`) still goes through `res.end`, which writes the last chunk.
 */
export class SseStream {
  /**
   * The keep-alive rounds, one per interval in use: one timer writes the comment to every open
   * stream of that interval, in place of a timer (and its closure) per stream.
   */
  static #keepAlives = new Map<number, KeepAliveRound>();

  /** Streams whose socket was corked in this turn, uncorked together on the next tick. */
  static #corked: SseStream[] = [];

  static #uncorkAll = (): void => {
    const corked = SseStream.#corked;
    SseStream.#corked = [];
    for (const stream of corked) {
      stream.#isCorked = false;
      stream.#socket?.uncork();
    }
  };

  readonly #res: ServerResponse;
  /** The socket events are written to directly (see the class comment); undefined: through `res.write`. */
  #socket: Socket | undefined;
  /** Whether the response is chunked (`Transfer-Encoding: chunked`), so direct writes are framed as chunks. */
  #chunked = false;
  #isCorked = false;
  readonly #keepAliveMs: number;
  readonly #maxBufferedBytes: number;
  /** Created on the first write that backs up: most streams never need it. */
  #backlog: StreamBacklog | undefined;
  readonly #endTimeoutMs: number;
  #opened = false;
  #closeReason: SseCloseReason | undefined;
  /** The keep-alive round this stream is in while open (see {@link KeepAliveRound}). */
  #keepAliveRound: KeepAliveRound | undefined;
  /** Neighbours in the keep-alive round's list. */
  #keepAlivePrev: SseStream | undefined;
  #keepAliveNext: SseStream | undefined;
  /** One callback, or an array once there are several: most streams have one or two. */
  #closeCallbacks: ((reason: SseCloseReason) => void) | Array<(reason: SseCloseReason) => void> | undefined;

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
    StreamBacklog.assertBound(maxBufferedBytes);
    this.#res = res;
    this.#keepAliveMs = keepAliveMs;
    this.#maxBufferedBytes = maxBufferedBytes;
    this.#endTimeoutMs = endTimeoutMs;

    if (res.destroyed || res.writableEnded) {
      this.#closeReason = res.destroyed ? 'client' : 'server';
      return;
    }
    // Listeners shared by every stream, which find theirs on the response: no closure and no
    // `once` wrapper per stream.
    (res as StreamResponse)[STREAM_OF] = this;
    res.on('close', SseStream.#onResponseClose);
    res.on('error', SseStream.#onResponseError);
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
    const headers = headerList(res, extraHeaders);
    if (headers) {
      res.writeHead(200, headers as unknown as OutgoingHttpHeaders);
    } else {
      // setHeader, not writeHead(status, headers): it replaces names case-insensitively instead of sending duplicates.
      for (const [name, value] of Object.entries(extraHeaders)) {
        if (value !== undefined) res.setHeader(name, value);
      }
      for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
      res.writeHead(200);
    }
    res.flushHeaders();
    this.#opened = true;
    this.#socket = ownedSocket(res);
    this.#chunked = res.chunkedEncoding;
    if (this.#keepAliveMs > 0) this.#joinKeepAlive();
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
    const callbacks = this.#closeCallbacks;
    if (this.#closeReason !== undefined) callback(this.#closeReason);
    else if (callbacks === undefined) this.#closeCallbacks = callback;
    else if (typeof callbacks === 'function') this.#closeCallbacks = [callbacks, callback];
    else callbacks.push(callback);
  }

  #joinKeepAlive(): void {
    let round = SseStream.#keepAlives.get(this.#keepAliveMs);
    if (!round) {
      const started = new KeepAliveRound(this.#keepAliveMs);
      started.timer = setInterval(() => SseStream.#writeKeepAlives(started), started.intervalMs).unref();
      SseStream.#keepAlives.set(started.intervalMs, (round = started));
    }
    this.#keepAliveRound = round;
    this.#keepAliveNext = round.head;
    if (round.head) round.head.#keepAlivePrev = this;
    round.head = this;
  }

  #leaveKeepAlive(): void {
    const round = this.#keepAliveRound;
    if (!round) return;
    const prev = this.#keepAlivePrev;
    const next = this.#keepAliveNext;
    if (prev) prev.#keepAliveNext = next;
    else round.head = next;
    if (next) next.#keepAlivePrev = prev;
    if (round.cursor === this) round.cursor = next;
    this.#keepAliveRound = this.#keepAlivePrev = this.#keepAliveNext = undefined;
    if (!round.head && SseStream.#keepAlives.get(round.intervalMs) === round) {
      clearInterval(round.timer);
      SseStream.#keepAlives.delete(round.intervalMs);
    }
  }

  /** Writes the keep-alive comment to every stream of `round` (a stream closed by it leaves the list). */
  static #writeKeepAlives(round: KeepAliveRound): void {
    round.cursor = round.head;
    while (round.cursor) {
      const stream = round.cursor;
      round.cursor = stream.#keepAliveNext;
      stream.#write(KEEP_ALIVE_FRAME);
    }
  }

  #assertOpened(): void {
    if (!this.#opened) throw new Error('SseStream.open() must be called before writing');
  }

  #write(frame: string): boolean {
    if (this.closed) return false;
    const socket = this.#socket;
    if (socket) return this.#writeToSocket(socket, frame);
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
      !this.#admits(res.writableLength, frame.length)
    ) {
      this.#close('slow-consumer', `retry: ${SLOW_CONSUMER_RETRY_MS}\n\n`);
      return false;
    }
    return true;
  }

  /** `#write` straight to the response's socket (see the class comment); the same checks and results. */
  #writeToSocket(socket: Socket, frame: string): boolean {
    // 'close' may not have been emitted yet although the connection is already unusable; the response may
    // also have been ended by someone else, after which its socket may carry the next response.
    if (socket.destroyed || !socket.writable || this.#res.writableEnded) {
      this.#close('client');
      return false;
    }
    if (!this.#isCorked) {
      this.#isCorked = true;
      socket.cork();
      if (SseStream.#corked.push(this) === 1) process.nextTick(SseStream.#uncorkAll);
    }
    const chunk = this.#chunked ? `${Buffer.byteLength(frame).toString(16)}\r\n${frame}\r\n` : frame;
    const flowing = socket.write(chunk);
    // An empty write tells the response its socket is backed up, so it still emits 'drain' for a producer
    // that paces itself on `res` (it writes nothing: an empty chunk is not framed).
    if (!flowing) this.#res.write('');
    // The backlog can only pass a cap above the high-water mark once write() signals it.
    if (
      (!flowing || this.#maxBufferedBytes < socket.writableHighWaterMark) &&
      !this.#admits(socket.writableLength, chunk.length)
    ) {
      this.#close('slow-consumer', `retry: ${SLOW_CONSUMER_RETRY_MS}\n\n`);
      return false;
    }
    return true;
  }

  #admits(backlogBytes: number, messageBytes: number): boolean {
    this.#backlog ??= new StreamBacklog(this.#maxBufferedBytes);
    return this.#backlog.admits(backlogBytes, messageBytes);
  }

  #close(reason: SseCloseReason, finalFrame?: string): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    this.#leaveKeepAlive();

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
    this.#closeCallbacks = undefined;
    if (typeof callbacks === 'function') SseStream.#runCloseCallback(callbacks, reason);
    else if (callbacks) for (const callback of callbacks) SseStream.#runCloseCallback(callback, reason);
  }

  static #runCloseCallback(callback: (reason: SseCloseReason) => void, reason: SseCloseReason): void {
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

  static readonly #onResponseClose = function (this: StreamResponse): void {
    const stream = this[STREAM_OF];
    if (!stream) return;
    this.off('error', SseStream.#onResponseError);
    stream.#close('client');
  };

  static readonly #onResponseError = function (this: StreamResponse): void {
    // Without a listener the error would be unhandled; the connection is unusable either way.
    const stream = this[STREAM_OF];
    if (stream) stream.#close('client');
    this.destroy();
  };
}

/**
 * The open streams of one keep-alive interval and the one timer that writes their comments: a
 * stream's first comment comes within one interval of its opening, and the next ones one
 * interval apart, so no stream stays silent longer than the interval.
 */
class KeepAliveRound {
  /** First stream of the list (the streams link to each other). */
  head: SseStream | undefined;
  /** The stream the running round writes to next, moved on when that stream leaves meanwhile. */
  cursor: SseStream | undefined;
  timer: NodeJS.Timeout | undefined;

  constructor(readonly intervalMs: number) {}
}
