import { jest } from '@jest/globals';
import { once } from 'node:events';
import http from 'node:http';
import type { ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { BodyAbortedError, BodyTooLargeError, readRequestBody } from './body-reader.js';
import { rejectBody } from './json-payload.js';

const LIMIT = 1024;

/**
 * A client on a bare socket: Node's own HTTP client half-closes as soon as it has read a
 * `Connection: close` answer, which would end the upload early and hide what the server does.
 */
class RawUpload {
  private received = Buffer.alloc(0);
  private readonly socket: net.Socket;
  readonly closed: Promise<boolean>;

  constructor(
    port: number,
    head: Record<string, string | number>,
    readonly chunked: boolean,
  ) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('error', () => undefined); // a reset shows as close(hadError)
    this.socket.on('data', (part: Buffer) => (this.received = Buffer.concat([this.received, part])));
    this.closed = once(this.socket, 'close').then(([hadError]) => hadError as boolean);
    const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}`);
    this.socket.write(['POST / HTTP/1.1', 'Host: 127.0.0.1', ...lines, '', ''].join('\r\n'));
  }

  send(bytes: number): void {
    const body = Buffer.alloc(bytes, 0x20);
    this.socket.write(this.chunked ? Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`), body, CRLF]) : body);
  }

  finish(): void {
    if (this.chunked) this.socket.write('0\r\n\r\n');
  }

  /** Resolves with the first complete answer (head and `Content-Length` body). */
  async answer(): Promise<{ status: number; headers: string; json: unknown }> {
    for (;;) {
      const headEnd = this.received.indexOf('\r\n\r\n');
      if (headEnd !== -1) {
        const head = this.received.subarray(0, headEnd).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
        const body = this.received.subarray(headEnd + 4);
        if (body.length >= length) {
          const json: unknown = JSON.parse(body.subarray(0, length).toString('utf8'));
          return { status: Number(head.slice(9, 12)), headers: head.toLowerCase(), json };
        }
      }
      await once(this.socket, 'data');
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const CRLF = Buffer.from('\r\n');

describe('rejectBody over real HTTP', () => {
  let server: http.Server;
  let port: number;
  let lingerMs: number;
  /** The server side of the request being refused, once it has been answered. */
  let refused: Promise<ServerResponse>;
  const clients: RawUpload[] = [];

  beforeEach(async () => {
    lingerMs = 10_000;
    let answered!: (res: ServerResponse) => void;
    refused = new Promise((resolve) => (answered = resolve));
    // The transport's order: read the body, refuse it when it is too large.
    server = http.createServer((req, res) => {
      readRequestBody(req, LIMIT).then(
        () => res.end('read'),
        (error: unknown) => {
          rejectBody(res, error, LIMIT, lingerMs);
          answered(res);
        },
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const upload = (chunked: boolean): RawUpload => {
    const head: Record<string, string | number> = chunked
      ? { 'Transfer-Encoding': 'chunked' }
      : { 'Content-Length': 8 * LIMIT };
    const client = new RawUpload(port, { 'Content-Type': 'application/json', ...head }, chunked);
    clients.push(client);
    return client;
  };

  it.each([
    ['a declared Content-Length over the limit', false],
    ['a chunked body that passes the limit', true],
  ])('answers %s while the client is still sending, and closes only after its last byte', async (_name, chunked) => {
    const client = upload(chunked);
    client.send(2 * LIMIT);

    const answer = await client.answer();
    expect(answer.status).toBe(413);
    expect(answer.headers).toContain('\r\nconnection: close');
    expect(answer.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body too large', data: { detail: `The body exceeds ${LIMIT} bytes` } },
    });
    // The whole answer is out, yet the connection stays open for the rest of the body.
    const serverRes = await refused;
    expect(serverRes.writableEnded).toBe(false);
    expect(serverRes.socket?.destroyed).toBe(false);

    client.send(6 * LIMIT);
    client.finish();
    // A clean close after the last byte: FIN, no reset.
    expect(await client.closed).toBe(false);
    expect(serverRes.writableFinished).toBe(true);
  });

  it('drops the connection of a client that goes on sending past the deadline', async () => {
    lingerMs = 50;
    const client = upload(true);
    client.send(2 * LIMIT);
    expect((await client.answer()).status).toBe(413);

    // Never finished: the server gives up on its own (the test timeout bounds the wait).
    await client.closed;
    const serverRes = await refused;
    expect(serverRes.destroyed).toBe(true);
    expect(serverRes.writableFinished).toBe(false);
  });
});

describe('rejectBody without a body to drain', () => {
  const standInResponse = (headersSent: boolean) => {
    const res = { headersSent, destroy: jest.fn(), writeHead: jest.fn(), end: jest.fn(), write: jest.fn() };
    return { res, asResponse: res as unknown as ServerResponse };
  };

  it('drops the socket of an aborted body', () => {
    const { res, asResponse } = standInResponse(false);
    rejectBody(asResponse, new BodyAbortedError(), LIMIT);
    expect(res.destroy).toHaveBeenCalledTimes(1);
    expect(res.writeHead).not.toHaveBeenCalled();
  });

  it('drops the socket when an answer was already started', () => {
    const { res, asResponse } = standInResponse(true);
    rejectBody(asResponse, new BodyTooLargeError(LIMIT), LIMIT);
    expect(res.destroy).toHaveBeenCalledTimes(1);
    expect(res.writeHead).not.toHaveBeenCalled();
  });
});
