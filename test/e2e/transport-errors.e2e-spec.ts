/**
 * The transport's error vocabulary (libs/mcp/src/errors/mcp-transport.exceptions.ts,
 * docs/decisions/0002-error-codes-and-http-statuses.md): every rejection of a whole HTTP request has its own
 * message, code and status,
 * pinned here exactly, body and headers. The 410 of a lost POST-stream history is pinned in
 * post-stream-resume.e2e-spec.ts, `-32004` of the in-flight bound in in-flight-bound.e2e-spec.ts.
 */
import { BasicTools } from '../fixtures/basic.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openLegacySse } from '../support/legacy-sse-client.js';
import { wireRequest } from '../support/http-wire.js';
import { ACCEPT_BOTH, initializeRequest, openSession } from '../support/raw-http.js';
import { OutageBackend } from '../support/test-backends.js';

const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26'];
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const BROWSER_HINT =
  'This is a Model Context Protocol (MCP) endpoint: point an MCP client at this URL (see https://modelcontextprotocol.io). GET opens its event stream and needs Accept: text/event-stream';

interface Rejection {
  status: number;
  headers?: Record<string, string>;
  id?: number | null;
  code: number;
  message: string;
  data: Record<string, unknown>;
}

/** Sends one request on a fresh connection and asserts the exact rejection. */
async function expectRejection(
  url: string,
  request: { method?: string; headers?: Record<string, string>; body?: string },
  expected: Rejection,
): Promise<void> {
  const response = await wireRequest(url, {
    method: request.method ?? 'POST',
    headers: request.headers,
    body: request.body,
  });
  const headers = Object.fromEntries(Object.keys(expected.headers ?? {}).map((name) => [name, response.headers[name]]));
  expect({ status: response.status, type: response.headers['content-type'], headers, body: response.json }).toEqual({
    status: expected.status,
    type: 'application/json',
    headers: expected.headers ?? {},
    body: {
      jsonrpc: '2.0',
      id: expected.id ?? null,
      error: { code: expected.code, message: expected.message, data: expected.data },
    },
  });
}

const ping = (id = 9) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('transport rejections: exact status, code, message and detail', () => {
  let fixture: FixtureApp;
  let url: string;
  let host: string;
  let session: Record<string, string>;
  const backend = new OutageBackend();

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [BasicTools],
      mcp: { limits: { maxBodyBytes: 1024 }, sessions: { max: 2 }, backend, sse: {} },
    });
    url = fixture.endpoint;
    host = new URL(url).host;
    ({ headers: session } = await openSession(url));
  });
  afterAll(() => fixture.close());

  const post = (headers: Record<string, string> = {}, body = ping()) => ({
    headers: { host, 'content-type': 'application/json', accept: ACCEPT_BOTH, ...session, ...headers },
    body,
  });

  it('403: a foreign Origin', async () => {
    await expectRejection(url, post({ origin: 'http://evil.example' }), {
      status: 403,
      code: -32000,
      message: 'Forbidden origin or host',
      data: { detail: 'Origin "http://evil.example" is not allowed' },
    });
  });

  it('403: a foreign Host', async () => {
    await expectRejection(url, post({ host: 'evil.example:5000' }), {
      status: 403,
      code: -32000,
      message: 'Forbidden origin or host',
      data: { detail: 'Host "evil.example:5000" is not allowed' },
    });
  });

  it('405: a method the endpoint does not serve, with Allow', async () => {
    await expectRejection(
      url,
      { method: 'PUT', ...post() },
      {
        status: 405,
        headers: { allow: 'GET, POST, DELETE' },
        code: -32000,
        message: 'Method not allowed',
        data: { detail: 'Use POST, GET or DELETE' },
      },
    );
  });

  it('406: a POST whose Accept allows neither JSON nor SSE', async () => {
    await expectRejection(url, post({ accept: 'text/html' }), {
      status: 406,
      code: -32000,
      message: 'Not acceptable',
      data: { detail: 'Accept must allow application/json or text/event-stream' },
    });
  });

  it('406: a GET without text/event-stream', async () => {
    await expectRejection(
      url,
      { method: 'GET', headers: { host, accept: 'application/json', ...session } },
      {
        status: 406,
        code: -32000,
        message: 'Not acceptable',
        data: { detail: 'GET opens the event stream and needs Accept: text/event-stream' },
      },
    );
  });

  it('406: a browser opening the endpoint is told what it is', async () => {
    await expectRejection(
      url,
      { method: 'GET', headers: { host, accept: BROWSER_ACCEPT } },
      { status: 406, code: -32000, message: 'Not acceptable', data: { detail: BROWSER_HINT } },
    );
  });

  it('413: a body over maxBodyBytes', async () => {
    await expectRejection(
      url,
      post({}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', pad: 'x'.repeat(2048) })),
      {
        status: 413,
        headers: { connection: 'close' },
        code: -32600,
        message: 'Request body too large',
        data: { detail: 'The body exceeds 1024 bytes' },
      },
    );
  });

  it('415: a body that is not application/json', async () => {
    await expectRejection(url, post({ 'content-type': 'text/plain' }), {
      status: 415,
      code: -32000,
      message: 'Unsupported media type',
      data: { detail: 'Content-Type must be application/json' },
    });
  });

  it('400: an unsupported MCP-Protocol-Version header, with the request id echoed', async () => {
    await expectRejection(url, post({ 'mcp-protocol-version': '1999-01-01' }), {
      status: 400,
      id: 9,
      code: -32000,
      message: 'Unsupported protocol version',
      data: {
        supported: SUPPORTED,
        detail: `MCP-Protocol-Version '1999-01-01' is not supported (supported: ${SUPPORTED.join(', ')})`,
      },
    });
  });

  it('400: a request without MCP-Session-Id, with its id echoed', async () => {
    await expectRejection(
      url,
      { headers: { host, 'content-type': 'application/json', accept: ACCEPT_BOTH }, body: ping(11) },
      {
        status: 400,
        id: 11,
        code: -32000,
        message: 'Session required',
        data: { detail: 'Send the MCP-Session-Id header returned by initialize (or initialize first)' },
      },
    );
  });

  it('404: an unknown session, with its id echoed', async () => {
    await expectRejection(url, post({ 'mcp-session-id': 'not-a-session-of-this-server' }, ping(12)), {
      status: 404,
      id: 12,
      code: -32001,
      message: 'Session not found',
      data: { detail: 'The session is unknown or has expired: initialize a new one' },
    });
  });

  it('503: initialize while maxSessions are held, with Retry-After', async () => {
    await openSession(url); // the second of two
    await expectRejection(
      url,
      {
        headers: { host, 'content-type': 'application/json', accept: ACCEPT_BOTH },
        body: JSON.stringify(initializeRequest(13)),
      },
      {
        status: 503,
        headers: { 'retry-after': '5' },
        id: 13,
        code: -32000,
        message: 'Too many sessions',
        data: {
          limit: 2,
          detail: 'The server already holds its limit of 2 sessions; retry later or end unused sessions',
        },
      },
    );
  });

  it('503: the session backend is unreachable, with Retry-After (never a 404)', async () => {
    backend.down = true;
    try {
      await expectRejection(url, post({}, ping(14)), {
        status: 503,
        headers: { 'retry-after': '5' },
        id: 14,
        code: -32000,
        message: 'Service unavailable',
        data: { detail: 'The session backend is unavailable; retry shortly' },
      });
    } finally {
      backend.down = false;
    }
  });

  it('legacy SSE: 404 for a POST to a stream that does not exist', async () => {
    await expectRejection(
      `${fixture.origin}/messages?sessionId=unknown`,
      { headers: { host, 'content-type': 'application/json' }, body: ping() },
      {
        status: 404,
        code: -32001,
        message: 'Session not found',
        data: { detail: 'Open a stream with GET first' },
      },
    );
  });

  it('legacy SSE: 406 for a GET without text/event-stream', async () => {
    await expectRejection(
      `${fixture.origin}/sse`,
      { method: 'GET', headers: { host, accept: 'application/json' } },
      {
        status: 406,
        code: -32000,
        message: 'Not acceptable',
        data: { detail: 'GET needs Accept: text/event-stream' },
      },
    );
    // The transport itself is up.
    (await openLegacySse(fixture.origin)).close();
  });
});

describe('transport rejections of a stateless server', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { sessions: false } });
  });
  afterAll(() => fixture.close());

  it.each([
    ['GET', 'This server is stateless: there is no GET stream'],
    ['DELETE', 'This server is stateless: there are no sessions to end'],
  ])('405: %s, with Allow: POST', async (method, detail) => {
    await expectRejection(
      fixture.endpoint,
      { method, headers: { accept: 'text/event-stream' } },
      { status: 405, headers: { allow: 'POST' }, code: -32000, message: 'Method not allowed', data: { detail } },
    );
  });
});
