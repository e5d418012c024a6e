import type { IncomingMessage } from 'node:http';

/**
 * The request body is (or is declared to be) larger than the limit.
 * The request stream has been paused; answer with `rejectBody` (json-payload.ts), which sends the
 * 413 and drains the rest before closing.
 */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';

  constructor(
    /** The limit that was exceeded, in bytes. */
    readonly limit: number,
    /** The `Content-Length` the client declared, when that is what exceeded the limit. */
    readonly declaredLength?: number,
  ) {
    super(
      declaredLength === undefined
        ? `Request body exceeds the limit of ${limit} bytes`
        : `Declared Content-Length ${declaredLength} exceeds the limit of ${limit} bytes`,
    );
  }
}

/** The client aborted or closed the connection before the whole body arrived. */
export class BodyAbortedError extends Error {
  override readonly name = 'BodyAbortedError';

  constructor(options?: { cause?: unknown }) {
    super('The client closed the connection before the request body was complete', options);
  }
}

const DECIMAL = /^\d+$/;

/**
 * Reads the whole request body into one buffer, never holding more than `limitBytes`.
 *
 * Rejects with {@link BodyTooLargeError} before reading anything when `Content-Length` declares more than
 * the limit, or as soon as the streamed byte count passes it (chunked bodies). In both cases the request is
 * paused and left unconsumed, and nothing read so far is kept. Answer with `rejectBody`: closing at once
 * while the client is still sending resets the connection before the client reads the 413.
 *
 * Rejects with {@link BodyAbortedError} when the client aborts or the request is destroyed mid-body.
 * All listeners added here are removed once the promise settles.
 *
 * Slow senders are not timed out here; the server's `requestTimeout` covers that.
 */
export function readRequestBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => readRequestBodyInto(req, limitBytes, resolve, reject));
}

/**
 * {@link readRequestBody} without a promise: exactly one of `onBody` and `onError` is called, once
 * (synchronously for a refusal that needs no byte read, later otherwise). For the transport's own
 * early reader, which would only chain the promise to the same two callbacks.
 */
export function readRequestBodyInto(
  req: IncomingMessage,
  limitBytes: number,
  onBody: (body: Buffer) => void,
  onError: (error: Error) => void,
): void {
  if (!Number.isSafeInteger(limitBytes) || limitBytes < 0) {
    onError(new RangeError(`limitBytes must be a non-negative safe integer, got ${String(limitBytes)}`));
    return;
  }
  // 'end' will never fire again, so waiting would hang. Checked first: a fully read request is auto-destroyed too.
  if (req.readableEnded) {
    onError(new Error('The request body has already been consumed'));
    return;
  }
  if (req.destroyed) {
    onError(new BodyAbortedError());
    return;
  }

  const declared = req.headers['content-length'];
  if (typeof declared === 'string' && DECIMAL.test(declared.trim())) {
    const declaredLength = Number(declared.trim());
    if (declaredLength > limitBytes) {
      req.pause();
      onError(new BodyTooLargeError(limitBytes, declaredLength));
      return;
    }
  }

  let chunks: Buffer[] = [];
  let received = 0;

  const cleanup = (): void => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('aborted', onAborted);
    req.off('error', onFailure);
    req.off('close', onAborted);
  };
  const fail = (error: Error): void => {
    cleanup();
    chunks = [];
    onError(error);
  };
  const onData = (chunk: Buffer | string): void => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (received + buf.length > limitBytes) {
      req.pause();
      req.unpipe();
      fail(new BodyTooLargeError(limitBytes));
      return;
    }
    received += buf.length;
    chunks.push(buf);
  };
  const onEnd = (): void => {
    cleanup();
    onBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
  };
  // 'aborted', and on Node 20 'close' without 'end' before it (a complete body's 'close' follows its 'end'):
  // the body never finished.
  const onAborted = (): void => fail(new BodyAbortedError());
  const onFailure = (error: Error): void => fail(new BodyAbortedError({ cause: error }));

  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onAborted);
  req.on('error', onFailure);
  req.on('close', onAborted);
  // Someone may have paused the stream earlier; adding a 'data' listener alone would not restart it then.
  req.resume();
}
