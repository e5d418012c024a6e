import { once } from 'node:events';
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { BodyAbortedError, BodyTooLargeError, readRequestBody, readRequestBodyInto } from './body-reader.js';
import { decodeJsonText } from '../connection/json-text.js';

const WATCHED_EVENTS = ['data', 'end', 'aborted', 'error', 'close'] as const;
const listenerCounts = (req: IncomingMessage): number[] => WATCHED_EVENTS.map((e) => req.listenerCount(e));

interface Outcome {
  body?: Buffer;
  error?: unknown;
  req: IncomingMessage;
  listenersBefore: number[];
  listenersAfter: number[];
  pausedAfter: boolean;
}

describe('readRequestBody over real HTTP', () => {
  let server: http.Server;
  let port: number;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;
  const clients: http.ClientRequest[] = [];

  beforeEach(async () => {
    handler = (_req, res) => res.end();
    server = http.createServer((req, res) => handler(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Installs a handler that reads the body and reports what happened, answering like the transport would. */
  function serverReads(limit: number, onRequest?: (req: IncomingMessage) => void): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      handler = (req, res) => {
        const listenersBefore = listenerCounts(req);
        const reading = readRequestBody(req, limit);
        onRequest?.(req);
        reading.then(
          (body) => {
            resolve({ body, req, listenersBefore, listenersAfter: listenerCounts(req), pausedAfter: req.isPaused() });
            res.end('ok');
          },
          (error: unknown) => {
            resolve({ error, req, listenersBefore, listenersAfter: listenerCounts(req), pausedAfter: req.isPaused() });
            if (error instanceof BodyTooLargeError) res.writeHead(413, { Connection: 'close' }).end();
          },
        );
      };
    });
  }

  function post(headers: OutgoingHttpHeaders = {}): http.ClientRequest {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers });
    // The server may close the connection while we are still uploading.
    req.on('error', () => undefined);
    clients.push(req);
    return req;
  }

  it('rejects on a declared Content-Length above the limit before any body byte is sent, and lets the caller answer 413', async () => {
    const outcome = serverReads(10);
    const client = post({ 'Content-Length': '100' });
    client.flushHeaders();
    const response = once(client, 'response') as Promise<[IncomingMessage]>;

    const { error, pausedAfter, listenersBefore, listenersAfter } = await outcome;
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect(error).toMatchObject({ limit: 10, declaredLength: 100 });
    expect(pausedAfter).toBe(true);
    expect(listenersAfter).toEqual(listenersBefore);

    const [res] = await response;
    expect(res.statusCode).toBe(413);
    expect(res.headers.connection).toBe('close');
  });

  it('rejects a chunked body once the streamed bytes pass the limit, without waiting for the end', async () => {
    const outcome = serverReads(10);
    const client = post();
    client.write('aaaaaa');
    client.write('bbbbbb');
    // Never ended: the rejection must come from the byte count alone.

    const { error, pausedAfter, listenersBefore, listenersAfter, req } = await outcome;
    expect(req.headers['content-length']).toBeUndefined();
    expect(req.headers['transfer-encoding']).toBe('chunked');
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect(error).toMatchObject({ limit: 10, declaredLength: undefined });
    expect(pausedAfter).toBe(true);
    expect(listenersAfter).toEqual(listenersBefore);
  });

  it('accepts a body of exactly the limit with Content-Length', async () => {
    const outcome = serverReads(10);
    post({ 'Content-Length': '10' }).end('0123456789');

    const { body, error, listenersBefore, listenersAfter } = await outcome;
    expect(error).toBeUndefined();
    expect(body?.toString()).toBe('0123456789');
    expect(listenersAfter).toEqual(listenersBefore);
  });

  it('accepts a chunked body of exactly the limit', async () => {
    const outcome = serverReads(10);
    const client = post();
    client.write('01234');
    client.end('56789');

    const { body, error } = await outcome;
    expect(error).toBeUndefined();
    expect(body?.toString()).toBe('0123456789');
  });

  it('resolves an empty body with a zero limit', async () => {
    const outcome = serverReads(0);
    post({ 'Content-Length': '0' }).end();

    const { body, error } = await outcome;
    expect(error).toBeUndefined();
    expect(body).toEqual(Buffer.alloc(0));
  });

  it('rejects with BodyAbortedError when the client disconnects mid-body, leaving no listeners behind', async () => {
    let gotFirstBytes!: () => void;
    const firstBytes = new Promise<void>((resolve) => (gotFirstBytes = resolve));
    const outcome = serverReads(1000, (req) => req.once('data', () => gotFirstBytes()));
    const client = post({ 'Content-Length': '100' });
    client.write('0123456789');

    await firstBytes;
    client.destroy();

    const { error, listenersBefore, listenersAfter } = await outcome;
    expect(error).toBeInstanceOf(BodyAbortedError);
    expect(listenersAfter).toEqual(listenersBefore);
  });

  it('rejects with BodyAbortedError when the client disconnects before sending any body byte', async () => {
    let gotRequest!: () => void;
    const requested = new Promise<void>((resolve) => (gotRequest = resolve));
    const outcome = serverReads(1000, () => gotRequest());
    const client = post({ 'Content-Length': '100' });
    client.flushHeaders();

    await requested;
    client.destroy();

    expect((await outcome).error).toBeInstanceOf(BodyAbortedError);
  });

  it('reassembles a multi-byte character split across two chunks', async () => {
    const payload = Buffer.from('{"price":"€5"}', 'utf8');
    const split = payload.indexOf(0xe2) + 1; // inside the three bytes of '€'
    const first = payload.subarray(0, split);
    const second = payload.subarray(split);

    const boundaries: number[] = [];
    let firstArrived!: () => void;
    const firstDone = new Promise<void>((resolve) => (firstArrived = resolve));
    const outcome = serverReads(1000, (req) => {
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        boundaries.push(seen);
        if (seen >= first.length) firstArrived();
      });
    });

    const client = post();
    client.write(first);
    await firstDone;
    client.end(second);

    const { body, error } = await outcome;
    expect(error).toBeUndefined();
    // The chunk boundary really falls inside '€' (the second part was only sent after the first arrived).
    expect(boundaries).toContain(split);
    expect(decodeJsonText(first)).toMatchObject({ ok: false });
    expect(body).toEqual(payload);
    expect(decodeJsonText(body!)).toEqual({ ok: true, value: { price: '€5' } });
  });
});

describe('readRequestBody on a stand-in stream', () => {
  const fakeRequest = (headers: IncomingHttpHeaders = {}): IncomingMessage =>
    Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage;

  /** Lets queued stream events run; used only to show that nothing settled yet. */
  const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  const track = <T>(promise: Promise<T>) => {
    const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
    promise.then(
      (value) => Object.assign(state, { settled: true, value }),
      (error: unknown) => Object.assign(state, { settled: true, error }),
    );
    return state;
  };

  it('keeps reading below the limit and rejects on the chunk that crosses it', async () => {
    const req = fakeRequest();
    const state = track(readRequestBody(req, 10));
    (req as unknown as PassThrough).write(Buffer.alloc(6));
    await flush();
    expect(state.settled).toBe(false);

    (req as unknown as PassThrough).write(Buffer.alloc(5));
    await flush();
    expect(state.error).toBeInstanceOf(BodyTooLargeError);
    expect(req.isPaused()).toBe(true);
    expect(listenerCounts(req).slice(0, 3)).toEqual([0, 0, 0]);
  });

  it('resumes a stream that was paused before reading started', async () => {
    const req = fakeRequest();
    req.pause();
    const reading = readRequestBody(req, 10);
    (req as unknown as PassThrough).end('abc');
    await expect(reading).resolves.toEqual(Buffer.from('abc'));
  });

  it('accepts string chunks when an encoding was set', async () => {
    const req = fakeRequest();
    req.setEncoding('utf8');
    const reading = readRequestBody(req, 3);
    (req as unknown as PassThrough).end('€');
    await expect(reading).resolves.toEqual(Buffer.from('€'));
  });

  it('reports a stream error as an abort, keeping the cause', async () => {
    const req = fakeRequest();
    const reading = readRequestBody(req, 10);
    const cause = new Error('socket hang up');
    req.destroy(cause);
    await expect(reading).rejects.toBeInstanceOf(BodyAbortedError);
    await expect(reading).rejects.toMatchObject({ cause });
    expect(listenerCounts(req)).toEqual([0, 0, 0, 0, 0]);
  });

  it('reports an "aborted" event as an abort', async () => {
    const req = fakeRequest();
    const reading = readRequestBody(req, 10);
    req.emit('aborted');
    await expect(reading).rejects.toBeInstanceOf(BodyAbortedError);
    expect(listenerCounts(req)).toEqual([0, 0, 0, 0, 0]);
  });

  it('reports a close without end as an abort', async () => {
    const req = fakeRequest();
    const reading = readRequestBody(req, 10);
    req.destroy();
    await expect(reading).rejects.toBeInstanceOf(BodyAbortedError);
  });

  it('rejects at once for a destroyed request', async () => {
    const req = fakeRequest();
    req.destroy();
    await expect(readRequestBody(req, 10)).rejects.toBeInstanceOf(BodyAbortedError);
  });

  it('rejects at once, instead of hanging, when the body was already consumed', async () => {
    const req = fakeRequest();
    req.resume();
    (req as unknown as PassThrough).end('x');
    await once(req, 'end');
    await expect(readRequestBody(req, 10)).rejects.toThrow('already been consumed');
  });

  it('calls back once, without a promise: at once for a declared length past the limit, after the end for a body', async () => {
    const tooLarge = fakeRequest({ 'content-length': '11' });
    const refusals: Error[] = [];
    readRequestBodyInto(
      tooLarge,
      10,
      () => undefined,
      (error) => refusals.push(error),
    );
    expect(refusals).toEqual([expect.any(BodyTooLargeError)]);

    const req = fakeRequest();
    const bodies: Buffer[] = [];
    const errors: Error[] = [];
    readRequestBodyInto(
      req,
      10,
      (body) => bodies.push(body),
      (error) => errors.push(error),
    );
    (req as unknown as PassThrough).write('ab');
    (req as unknown as PassThrough).end('c');
    await once(req, 'close');
    expect(bodies).toEqual([Buffer.from('abc')]);
    expect(errors).toEqual([]);
    expect(listenerCounts(req)).toEqual([0, 0, 0, 0, 0]);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects an invalid limit %p', async (limit) => {
    await expect(readRequestBody(fakeRequest(), limit)).rejects.toBeInstanceOf(RangeError);
  });

  it.each([
    ['ignores a non-numeric Content-Length (the parser owns framing)', { 'content-length': 'abc' }],
    ['does not reject a declared length at the limit', { 'content-length': '3' }],
  ])('%s', async (_name, headers) => {
    const req = fakeRequest(headers);
    const reading = readRequestBody(req, 3);
    (req as unknown as PassThrough).end('abc');
    await expect(reading).resolves.toEqual(Buffer.from('abc'));
  });
});

describe('decodeJsonText', () => {
  const bytes = (...values: number[]): Buffer => Buffer.from(values);

  it.each<[string, Buffer, unknown]>([
    ['an object', Buffer.from('{"a":1}'), { a: 1 }],
    ['an array (batches are judged elsewhere)', Buffer.from('[1,2]'), [1, 2]],
    ['null', Buffer.from('null'), null],
    ['surrounding whitespace', Buffer.from(' \n {"a":true}\r\n'), { a: true }],
    ['a leading BOM', Buffer.concat([bytes(0xef, 0xbb, 0xbf), Buffer.from('{"a":"b"}')]), { a: 'b' }],
    ['non-ASCII text', Buffer.from('{"s":"€ 𝄞 ü"}'), { s: '€ 𝄞 ü' }],
  ])('accepts %s', (_name, input, value) => {
    expect(decodeJsonText(input)).toEqual({ ok: true, value });
  });

  it.each<[string, Buffer, RegExp]>([
    ['an empty body', Buffer.alloc(0), /empty/],
    ['a whitespace-only body', Buffer.from(' \r\n\t'), /empty/],
    ['a BOM-only body', bytes(0xef, 0xbb, 0xbf), /empty/],
    ['invalid JSON', Buffer.from('{"a":'), /not valid JSON/],
    ['trailing garbage', Buffer.from('{"a":1} x'), /not valid JSON/],
    ['two BOMs', Buffer.concat([bytes(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf), Buffer.from('{}')]), /not valid JSON/],
    ['a stray 0xFF byte', Buffer.concat([Buffer.from('{"a":"'), bytes(0xff), Buffer.from('"}')]), /not valid UTF-8/],
    [
      'an overlong encoding',
      Buffer.concat([Buffer.from('{"a":"'), bytes(0xc0, 0xaf), Buffer.from('"}')]),
      /not valid UTF-8/,
    ],
    [
      'an encoded surrogate',
      Buffer.concat([Buffer.from('{"a":"'), bytes(0xed, 0xa0, 0x80), Buffer.from('"}')]),
      /not valid UTF-8/,
    ],
    ['a truncated sequence', Buffer.concat([Buffer.from('{"a":"'), bytes(0xe2, 0x82)]), /not valid UTF-8/],
    ['Latin-1 text', Buffer.from('{"a":"é"}', 'latin1'), /not valid UTF-8/],
  ])('rejects %s', (_name, input, detail) => {
    const result = decodeJsonText(input);
    expect(result.ok).toBe(false);
    expect(result).toEqual({ ok: false, detail: expect.stringMatching(detail) });
  });

  it('keeps the detail short for huge invalid input', () => {
    const result = decodeJsonText(Buffer.from(`{"a":${'x'.repeat(100_000)}}`));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail.length).toBeLessThan(300);
  });
});
