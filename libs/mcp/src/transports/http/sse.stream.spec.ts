import { jest } from '@jest/globals';
import { once } from 'node:events';
import http from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SLOW_CONSUMER_RETRY_MS, SseStream } from './sse.stream.js';
import type { SseCloseReason, SseStreamOptions } from './sse.stream.js';

interface ServerSide {
  stream: SseStream;
  req: IncomingMessage;
  res: ServerResponse;
}

/** Resolves with everything received once `done` holds for it; rejects if the stream ends first. */
function readUntil(source: NodeJS.ReadableStream, done: (text: string) => boolean): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    const cleanup = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('close', onEnd);
      source.off('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (done(text)) {
        cleanup();
        resolve(text);
      }
    };
    const onEnd = () => {
      cleanup();
      if (done(text)) resolve(text);
      else reject(new Error(`stream ended before the expected data; got ${JSON.stringify(text.slice(-200))}`));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('close', onEnd);
    source.on('error', onError);
  });
}

/** Resolves with everything received when the stream ends. */
function readToEnd(source: NodeJS.ReadableStream): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    source.on('data', (chunk: Buffer | string) => (text += chunk.toString()));
    source.once('end', () => resolve(text));
    source.once('error', reject);
  });
}

const closeReason = (stream: SseStream): Promise<SseCloseReason> => new Promise((resolve) => stream.onClose(resolve));

/** A 16 KiB event payload (the slow-consumer tests' unit). */
const payload = JSON.stringify({ pad: 'x'.repeat(16 * 1024) });

describe('SseStream', () => {
  let server: http.Server;
  let port: number;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;
  const cleanups: Array<() => void> = [];

  beforeEach(async () => {
    handler = (_req, res) => res.end();
    server = http.createServer((req, res) => handler(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Makes the server answer the next request with a stream, opened unless `open` is false. */
  function serveStream(
    options: SseStreamOptions,
    extraHeaders?: OutgoingHttpHeaders,
    prepare?: (res: ServerResponse) => void,
    open = true,
  ): Promise<ServerSide> {
    return new Promise<ServerSide>((resolve) => {
      handler = (req, res) => {
        prepare?.(res);
        const stream = new SseStream(res, options);
        cleanups.push(() => stream.close());
        if (open) stream.open(extraHeaders);
        resolve({ stream, req, res });
      };
    });
  }

  function get(): http.ClientRequest {
    const req = http.get({ host: '127.0.0.1', port, path: '/', headers: { Accept: 'text/event-stream' } });
    req.on('error', () => undefined);
    cleanups.push(() => req.destroy());
    return req;
  }

  /** A raw client, so the test decides exactly when (if ever) bytes are read. */
  function rawGet(): net.Socket {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.pause();
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`);
    cleanups.push(() => socket.destroy());
    return socket;
  }

  async function openClient(
    options: SseStreamOptions,
    extraHeaders?: OutgoingHttpHeaders,
    prepare?: (res: ServerResponse) => void,
  ) {
    const serverSide = serveStream(options, extraHeaders, prepare);
    const client = get();
    const [response] = (await once(client, 'response')) as [IncomingMessage];
    return { ...(await serverSide), client, response };
  }

  describe('open', () => {
    it('sends status 200 and the SSE headers before any event, keeping extra and earlier headers', async () => {
      const { response } = await openClient(
        { keepAliveMs: 0 },
        { 'Mcp-Session-Id': 'abc', 'content-type': 'text/plain', 'cache-control': 'max-age=60' },
        (res) => res.setHeader('X-Earlier', 'yes'),
      );

      // Arrived although nothing was written after open(): the headers were flushed.
      expect(response.statusCode).toBe(200);
      expect(response.headers).toMatchObject({
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'mcp-session-id': 'abc',
        'x-earlier': 'yes',
      });
      expect(response.rawHeaders.filter((name) => name.toLowerCase() === 'content-type')).toHaveLength(1);
    });

    it('sends earlier headers once, replaced by extra and SSE headers of the same name, and keeps none', async () => {
      const { res, response } = await openClient({ keepAliveMs: 0 }, { 'X-Replaced': 'extra' }, (res) => {
        res.setHeader('Content-Type', 'text/html');
        res.setHeader('x-replaced', 'earlier');
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      });

      expect(response.headers).toMatchObject({
        'content-type': 'text/event-stream',
        'x-replaced': 'extra',
        'set-cookie': ['a=1', 'b=2'],
      });
      const names = response.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
      expect(names.filter((name) => name === 'content-type' || name === 'x-replaced')).toHaveLength(2);
      // Sent with the status line, not kept for the stream's lifetime.
      expect(res.getHeaderNames()).toEqual([]);
    });

    it('sets the headers one by one when writeHead is wrapped (a middleware reads them there)', async () => {
      let seen: unknown;
      const { res, response } = await openClient({ keepAliveMs: 0 }, { 'Mcp-Session-Id': 'abc' }, (res) => {
        const writeHead = res.writeHead;
        res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
          seen = this.getHeader('content-type');
          return writeHead.apply(this, args);
        } as typeof writeHead;
      });

      expect(seen).toBe('text/event-stream');
      expect(response.headers['mcp-session-id']).toBe('abc');
      expect(res.getHeader('mcp-session-id')).toBe('abc');
    });

    it('throws when called twice', async () => {
      const { stream } = await openClient({ keepAliveMs: 0 });
      expect(() => stream.open()).toThrow('already called');
    });

    it('throws when the response headers were already sent', async () => {
      const serverSide = serveStream({ keepAliveMs: 0 }, undefined, (res) => res.writeHead(200).flushHeaders(), false);
      get();
      const { stream } = await serverSide;
      expect(() => stream.open()).toThrow('already sent');
    });

    it('gives a closed stream for a response that was already ended', async () => {
      const serverSide = serveStream({ keepAliveMs: 0 }, undefined, (res) => res.writeHead(204).end(), false);
      get();
      const { stream } = await serverSide;
      expect(stream.closed).toBe(true);
      expect(stream.open()).toBe(false);
      const reasons: SseCloseReason[] = [];
      stream.onClose((reason) => reasons.push(reason));
      expect(reasons).toEqual(['server']);
    });

    it('returns false and writes nothing when the client left before open()', async () => {
      const serverSide = serveStream({ keepAliveMs: 0 }, undefined, undefined, false);
      const client = get();
      const { stream, res } = await serverSide;
      client.destroy();
      await once(res, 'close');

      expect(stream.closed).toBe(true);
      expect(stream.open()).toBe(false);
      expect(res.headersSent).toBe(false);
      expect(stream.send(JSON.stringify({ a: 1 }))).toBe(false);
    });
  });

  describe('framing', () => {
    it('writes the exact bytes of events, and a retry hint when closed with one', async () => {
      const { stream, response } = await openClient({ keepAliveMs: 0 });
      const body = readToEnd(response);

      const note = JSON.stringify({ jsonrpc: '2.0', method: 'note', params: { text: 'line1\nline2\r€' } });
      expect(stream.send(note, '42')).toBe(true);
      expect(stream.send(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }))).toBe(true);
      stream.close(500);

      expect(await body).toBe(
        'id: 42\nevent: message\ndata: {"jsonrpc":"2.0","method":"note","params":{"text":"line1\\nline2\\r€"}}\n\n' +
          'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n' +
          'retry: 500\n\n',
      );
    });

    it.each(['', 'a\nb', 'a\rb', 'a\0b'])('refuses the event id %p', async (eventId) => {
      const { stream } = await openClient({ keepAliveMs: 0 });
      expect(() => stream.send('{}', eventId)).toThrow(RangeError);
      expect(stream.closed).toBe(false);
    });

    it('refuses to write before open()', async () => {
      const serverSide = serveStream({ keepAliveMs: 0 }, undefined, undefined, false);
      get();
      const { stream } = await serverSide;
      expect(() => stream.send('{}')).toThrow('open()');
    });
  });

  describe('keep-alive', () => {
    it('keeps writing to the streams of an interval when another stream of it closes', async () => {
      const first = await openClient({ keepAliveMs: 10 });
      const second = await openClient({ keepAliveMs: 10 });
      first.stream.close();
      await readToEnd(first.response);

      const text = await readUntil(second.response, (received) => received.split(': keepalive\n\n').length > 3);
      expect(text.replaceAll(': keepalive\n\n', '')).toBe('');
      second.stream.close();
      await readToEnd(second.response);
    });

    it('writes keep-alive comments on the interval, and nothing else', async () => {
      const { stream, response } = await openClient({ keepAliveMs: 10 });

      const text = await readUntil(response, (received) => received.split(': keepalive\n\n').length > 3);
      expect(text.replaceAll(': keepalive\n\n', '')).toBe('');

      stream.close();
      // The timer is gone: the response ends instead of writing forever.
      await readToEnd(response);
      expect(stream.closed).toBe(true);
    });
  });

  describe('close', () => {
    it('ends the response once, fires onClose once with "server", and refuses later writes', async () => {
      const { stream, response } = await openClient({ keepAliveMs: 0 });
      const reasons: SseCloseReason[] = [];
      stream.onClose((reason) => reasons.push(reason));
      const body = readToEnd(response);

      stream.send(JSON.stringify({ last: true }), '7');
      stream.close();
      stream.close();

      expect(await body).toBe('id: 7\nevent: message\ndata: {"last":true}\n\n');
      expect(reasons).toEqual(['server']);
      expect(stream.closed).toBe(true);
      expect(stream.send(JSON.stringify({ late: true }), '8')).toBe(false);

      const late: SseCloseReason[] = [];
      stream.onClose((reason) => late.push(reason));
      expect(late).toEqual(['server']);
    });

    it('leaves a never-opened response to the caller', async () => {
      const serverSide = serveStream({ keepAliveMs: 0 }, undefined, undefined, false);
      const client = get();
      const { stream, res } = await serverSide;
      const reasons: SseCloseReason[] = [];
      stream.onClose((reason) => reasons.push(reason));

      stream.close();
      expect(reasons).toEqual(['server']);
      expect(res.headersSent).toBe(false);

      res.writeHead(202, { 'Content-Type': 'application/json' }).end('{}');
      const [response] = (await once(client, 'response')) as [IncomingMessage];
      expect(response.statusCode).toBe(202);
      expect(await readToEnd(response)).toBe('{}');
    });

    it('fires onClose once with "client" when the client disconnects, and then never throws on writes', async () => {
      const { stream, client } = await openClient({ keepAliveMs: 10 });
      const reasons: SseCloseReason[] = [];
      stream.onClose((reason) => reasons.push(reason));
      const closed = closeReason(stream);

      client.destroy();

      expect(await closed).toBe('client');
      expect(stream.closed).toBe(true);
      expect(stream.send(JSON.stringify({ a: 1 }), '1')).toBe(false);
      stream.close();
      expect(reasons).toEqual(['client']);
    });

    it('keeps running the other callbacks when one throws', async () => {
      const { stream } = await openClient({ keepAliveMs: 0 });
      const uncaught = new Promise<unknown>((resolve) => {
        // The error is rethrown in a microtask; catch it here instead of failing the run.
        const original = globalThis.queueMicrotask;
        globalThis.queueMicrotask = (task) =>
          original(() => {
            try {
              task();
            } catch (error) {
              resolve(error);
            }
          });
        cleanups.push(() => (globalThis.queueMicrotask = original));
      });
      const reasons: SseCloseReason[] = [];
      stream.onClose(() => {
        throw new Error('callback bug');
      });
      stream.onClose((reason) => reasons.push(reason));

      expect(() => stream.close()).not.toThrow();
      expect(reasons).toEqual(['server']);
      expect(await uncaught).toEqual(new Error('callback bug'));
    });
  });

  describe('slow consumers', () => {
    // 64 MiB: far more than socket buffers can swallow, so a stream that never trips fails instead of hanging.
    const MAX_SENDS = 4096;

    /**
     * Sends until send() returns false; returns how many sends succeeded. Yields to the event loop between
     * sends so each write really reaches the socket: only a client that stops reading can trip the limit.
     */
    async function flood(stream: SseStream): Promise<number> {
      for (let i = 0; i < MAX_SENDS; i++) {
        if (!stream.send(payload, String(i))) return i;
        await new Promise((resolve) => setImmediate(resolve));
      }
      throw new Error(`the stream accepted ${MAX_SENDS} messages from a client that does not read`);
    }

    it('closes the stream with a retry hint once the unsent data passes maxBufferedBytes', async () => {
      const serverSide = serveStream({ keepAliveMs: 0, maxBufferedBytes: 64 * 1024, endTimeoutMs: 60_000 });
      const socket = rawGet();
      const { stream, res } = await serverSide;
      const closed = closeReason(stream);

      const accepted = await flood(stream);
      // Far more than maxBufferedBytes went out before the socket buffers filled up.
      expect(accepted).toBeGreaterThan(8);

      expect(await closed).toBe('slow-consumer');
      expect(stream.closed).toBe(true);
      expect(res.writableEnded).toBe(true);
      expect(stream.send(payload, 'late')).toBe(false);

      // A client that catches up gets everything written, then the retry hint and the end of the response.
      socket.resume();
      const raw = await readUntil(socket, (text) => text.endsWith('\r\n0\r\n\r\n'));
      expect(raw.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
      expect(raw.endsWith(`retry: ${SLOW_CONSUMER_RETRY_MS}\n\n\r\n0\r\n\r\n`)).toBe(true);
      expect(raw.split('event: message\n').length - 1).toBe(accepted + 1);
      expect(raw).toContain(`id: ${accepted}\nevent: message\n`);
      expect(raw).not.toContain('id: late\n');
    });

    it('destroys the connection of a client that never reads once endTimeoutMs has passed', async () => {
      const serverSide = serveStream({ keepAliveMs: 0, maxBufferedBytes: 64 * 1024, endTimeoutMs: 20 });
      rawGet();
      const { stream, req } = await serverSide;
      const serverSocket = req.socket;
      const socketClosed = once(serverSocket, 'close');

      await flood(stream);
      expect(stream.closed).toBe(true);
      expect(serverSocket.destroyed).toBe(false);

      await socketClosed;
      expect(serverSocket.destroyed).toBe(true);
    });

    it('also counts a burst written within one tick, before the socket could send any of it', async () => {
      const { stream, response } = await openClient({ keepAliveMs: 0, maxBufferedBytes: 64 * 1024 });
      const closed = closeReason(stream);
      const results = Array.from({ length: 8 }, (_, i) => stream.send(payload, String(i)));

      expect(results.indexOf(false)).toBeGreaterThan(0);
      expect(await closed).toBe('slow-consumer');
      expect(await readToEnd(response)).toMatch(/retry: 1000\n\n$/);
    });

    it('keeps a client that reads when one message is larger than maxBufferedBytes and another follows at once', async () => {
      const { stream, response } = await openClient({ keepAliveMs: 0, maxBufferedBytes: 64 * 1024 });
      const body = readToEnd(response);
      const closed = jest.fn();
      stream.onClose(closed);
      // Both are written within one tick: the socket holds all of the large one when the small one comes.
      expect(stream.send(JSON.stringify({ pad: 'x'.repeat(256 * 1024) }), 'large')).toBe(true);
      expect(stream.send('{"small":true}', 'small')).toBe(true);
      expect(closed).not.toHaveBeenCalled();
      stream.close();
      const text = await body;
      expect(text).toContain('id: small\nevent: message\ndata: {"small":true}\n\n');
      expect(text).not.toContain('retry:');
    });

    it('cuts off a client that leaves a second large message unread', async () => {
      const { stream, response } = await openClient({ keepAliveMs: 0, maxBufferedBytes: 64 * 1024 });
      const closed = closeReason(stream);
      const large = JSON.stringify({ pad: 'x'.repeat(256 * 1024) });
      expect(stream.send(large, '1')).toBe(true);
      expect(stream.send(large, '2')).toBe(false);
      expect(await closed).toBe('slow-consumer');
      expect(await readToEnd(response)).toMatch(/retry: 1000\n\n$/);
    });

    it('lets a reading client receive far more than maxBufferedBytes in total', async () => {
      const { stream, res, response } = await openClient({ keepAliveMs: 0, maxBufferedBytes: 64 * 1024 });
      const body = readToEnd(response);
      let accepted = 0;
      // 1 MiB in total, paced by 'drain' like a well-behaved producer.
      for (let i = 0; i < 64; i++) {
        if (!stream.send(payload, String(i))) break;
        accepted++;
        if (res.writableNeedDrain) await once(res, 'drain');
      }
      stream.close();
      expect(accepted).toBe(64);
      expect((await body).split('event: message\n').length - 1).toBe(64);
    });
  });

  describe('writing to the socket directly', () => {
    it('bypasses res.write once open, writing the same chunked bytes', async () => {
      const { stream, res, response } = await openClient({ keepAliveMs: 0 });
      const body = readToEnd(response);
      const write = jest.spyOn(res, 'write');

      expect(stream.send('{"a":1}', '1')).toBe(true);
      expect(stream.send('{"b":"€"}')).toBe(true);
      expect(write).not.toHaveBeenCalled();
      stream.close(250);

      expect(response.headers['transfer-encoding']).toBe('chunked');
      expect(await body).toBe(
        'id: 1\nevent: message\ndata: {"a":1}\n\nevent: message\ndata: {"b":"€"}\n\nretry: 250\n\n',
      );
    });

    it('frames each event as one HTTP chunk on the wire', async () => {
      const serverSide = serveStream({ keepAliveMs: 0 });
      const socket = rawGet();
      socket.resume();
      const { stream } = await serverSide;
      const raw = readUntil(socket, (text) => text.endsWith('\r\n0\r\n\r\n'));
      const event = 'event: message\ndata: {"x":"é"}\n\n';
      stream.send('{"x":"é"}');
      stream.close();

      expect(await raw).toContain(`\r\n\r\n${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n0\r\n\r\n`);
    });

    it('writes unframed events to an HTTP/1.0 client (no chunked encoding)', async () => {
      const serverSide = serveStream({ keepAliveMs: 0 });
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      cleanups.push(() => socket.destroy());
      socket.write(`GET / HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
      const { stream } = await serverSide;
      const raw = readToEnd(socket);
      stream.send('{"n":1}', '7');
      stream.close(100);

      const text = await raw;
      expect(text.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
      expect(text.toLowerCase()).not.toContain('transfer-encoding');
      expect(text.endsWith('\r\n\r\nid: 7\nevent: message\ndata: {"n":1}\n\nretry: 100\n\n')).toBe(true);
    });

    it('stops writing once someone else ended the response, and counts it as the client leaving', async () => {
      const { stream, res, response } = await openClient({ keepAliveMs: 0 });
      const body = readToEnd(response);
      expect(stream.send('{"a":1}')).toBe(true);
      const closed = closeReason(stream);
      res.end();

      expect(stream.send('{"b":2}')).toBe(false);
      expect(await closed).toBe('client');
      expect(await body).toBe('event: message\ndata: {"a":1}\n\n');
    });

    it('goes through res.write when a middleware replaced it before open', async () => {
      const seen: string[] = [];
      const { stream, response } = await openClient({ keepAliveMs: 0 }, undefined, (res) => {
        const original = res.write.bind(res) as (chunk: string) => boolean;
        res.write = ((chunk: string) => {
          seen.push(String(chunk));
          return original(chunk);
        }) as typeof res.write;
      });
      const body = readToEnd(response);
      stream.send('{"a":1}');
      stream.close();

      expect(seen).toEqual(['event: message\ndata: {"a":1}\n\n']);
      expect(await body).toBe('event: message\ndata: {"a":1}\n\n');
    });

    it('behaves the same behind Express (the controller mount): bytes, slow-consumer cut, drain', async () => {
      const { default: express } = await import('express');
      const app = express();
      let resolveSide: (side: { stream: SseStream; res: ServerResponse }) => void = () => undefined;
      app.get('/', (_req, res) => {
        const stream = new SseStream(res, { keepAliveMs: 0, maxBufferedBytes: 64 * 1024 });
        cleanups.push(() => stream.close());
        stream.open();
        resolveSide({ stream, res });
      });
      handler = (req, res) => void app(req, res);

      // A reading client gets every byte, paced by the response's 'drain'.
      let side = new Promise<{ stream: SseStream; res: ServerResponse }>((resolve) => (resolveSide = resolve));
      const client = get();
      const [response] = (await once(client, 'response')) as [IncomingMessage];
      const { stream, res } = await side;
      expect(Object.getPrototypeOf(res)).not.toBe(http.ServerResponse.prototype);
      const write = jest.spyOn(res, 'write');
      const body = readToEnd(response);
      let accepted = 0;
      for (let i = 0; i < 64; i++) {
        if (!stream.send(payload, String(i))) break;
        accepted++;
        if (res.writableNeedDrain) await once(res, 'drain');
      }
      // Only the empty writes that flag back-pressure went through res.write.
      expect(write.mock.calls.every(([chunk]) => chunk === '')).toBe(true);
      stream.close();
      expect(accepted).toBe(64);
      expect((await body).split('event: message\n').length - 1).toBe(64);

      // A burst within one turn passes the cap: the stream is cut with the retry hint.
      side = new Promise((resolve) => (resolveSide = resolve));
      const second = get();
      const [secondResponse] = (await once(second, 'response')) as [IncomingMessage];
      const { stream: burst } = await side;
      const closed = closeReason(burst);
      const results = Array.from({ length: 8 }, (_, i) => burst.send(payload, String(i)));
      expect(results.indexOf(false)).toBeGreaterThan(0);
      expect(await closed).toBe('slow-consumer');
      expect(await readToEnd(secondResponse)).toMatch(/retry: 1000\n\n$/);
    });
  });

  describe('options', () => {
    it.each<SseStreamOptions>([
      { keepAliveMs: -1 },
      { keepAliveMs: 1.5 },
      { keepAliveMs: 2 ** 31 },
      { maxBufferedBytes: 0 },
      { maxBufferedBytes: Number.POSITIVE_INFINITY },
      { endTimeoutMs: -5 },
    ])('rejects %p', (options) => {
      const res = new http.ServerResponse(new http.IncomingMessage(new net.Socket()));
      expect(() => new SseStream(res, options)).toThrow(RangeError);
    });
  });
});
