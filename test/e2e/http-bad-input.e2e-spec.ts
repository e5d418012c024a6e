/**
 * Bad input over Streamable HTTP (docs/decisions/0002-error-codes-and-http-statuses.md, docs/security.md):
 * JSON-RPC framing,
 * parameters, encodings, body limits, Origin/Host, prototype keys and concurrent sessions.
 * After every bad input the server must keep serving.
 */
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { ACCEPT_BOTH, openSession, rawPost, rawRequest } from '../support/raw-http.js';
import { mcpPostHeaders, rawSocketStatus, rpc, wireOversizedPost, wireRequest } from '../support/http-wire.js';
import { LONE_SURROGATE_ON_THE_WIRE, loneSurrogateAnswer, loneSurrogateEcho } from '../support/lone-surrogate.js';

const LIMIT = 4 * 1024 * 1024;

/** Expects a JSON-RPC error response with that code and id. */
function expectRpcError(json: any, code: number, id: unknown): void {
  expect(json).toEqual(
    expect.objectContaining({
      jsonrpc: '2.0',
      id,
      error: expect.objectContaining({ code, message: expect.any(String) }),
    }),
  );
  expect(json).not.toHaveProperty('result');
}

describe('Streamable HTTP: bad input', () => {
  let gateway: RunningGateway;
  let endpoint: string;
  /** Headers of an initialized 2025-11-25 session. */
  let session: Record<string, string>;
  let pings = 1000;

  beforeAll(async () => {
    gateway = await startGateway();
    endpoint = gateway.endpoint;
    ({ headers: session } = await openSession(endpoint, '2025-11-25'));
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const post = (body: string | object, headers: Record<string, string> = {}) =>
    rawPost(endpoint, body, { ...session, ...headers });

  /** The server still answers a ping on the shared session. */
  async function expectServing(): Promise<void> {
    const id = ++pings;
    const response = await post(rpc(id, 'ping'));
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ jsonrpc: '2.0', id, result: {} });
  }

  describe('A. JSON-RPC framing', () => {
    it.each([
      ['truncated object', '{"jsonrpc":"2.0","id":4,'],
      ['not JSON at all', 'hello'],
      ['empty body', ''],
      ['trailing garbage', '{"jsonrpc":"2.0","id":1,"method":"ping"} x'],
    ])('malformed JSON (%s) → 400 -32700 with id null', async (_name, body) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32700, null);
      await expectServing();
    });

    it.each([
      ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }],
      ['jsonrpc missing', { id: 1, method: 'ping' }],
      ['jsonrpc as a number', { jsonrpc: 2.0, id: 1, method: 'ping' }],
    ])('%s → 400 -32600', async (_name, body) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe(-32600);
      expect([1, null]).toContain(response.json.id);
      await expectServing();
    });

    it('id: null → 400 -32600, not 202', async () => {
      const response = await post('{"jsonrpc":"2.0","id":null,"method":"ping"}');
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32600, null);
      await expectServing();
    });

    it.each([
      ['1.5', '1.5'],
      ['{}', '{}'],
      ['true', 'true'],
      ['[]', '[1]'],
      ['1e400 (Infinity)', '1e400'],
      ['9007199254740993 (unsafe integer)', '9007199254740993'],
    ])('id %s → 400 -32600 with id null', async (_name, rawId) => {
      const response = await post(`{"jsonrpc":"2.0","id":${rawId},"method":"ping"}`);
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32600, null);
      await expectServing();
    });

    it.each([
      ['a number', '42'],
      ['a string', '"ping"'],
      ['null', 'null'],
    ])('a body that is %s → 400 -32600', async (_name, body) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32600, null);
      await expectServing();
    });

    it('method that is not a string → 400 -32600 echoing the id', async () => {
      const response = await post({ jsonrpc: '2.0', id: 3, method: 42 });
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32600, 3);
      await expectServing();
    });

    it('string id "" is echoed exactly', async () => {
      const response = await post(rpc('', 'ping'));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ jsonrpc: '2.0', id: '', result: {} });
    });

    it('a 10 KB string id is echoed exactly', async () => {
      const id = 'x€"\\'.repeat(2_500) + 'end';
      expect(id.length).toBeGreaterThan(10_000);
      const response = await post(rpc(id, 'ping'));
      expect(response.status).toBe(200);
      expect(response.json.id).toBe(id);
      expect(response.json.result).toEqual({});
    });

    it('numeric ids keep their type', async () => {
      const response = await post(rpc(0, 'ping'));
      expect(response.json).toEqual({ jsonrpc: '2.0', id: 0, result: {} });
      const negative = await post(rpc(-17, 'ping'));
      expect(negative.json).toEqual({ jsonrpc: '2.0', id: -17, result: {} });
    });

    it('unknown method → HTTP 200 with -32601', async () => {
      const response = await post(rpc(8, 'no/such/method'));
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32601, 8);
    });

    it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf'])(
      'method %s → -32601 (never 500)',
      async (method) => {
        const response = await post(rpc(9, method));
        expect(response.status).toBe(200);
        expectRpcError(response.json, -32601, 9);
        await expectServing();
      },
    );

    it('a "notification" naming tools/call → 202 with an empty body', async () => {
      const response = await post(
        '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}',
      );
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
      await expectServing();
    });

    it('notifications/initialized carrying an id is a request → -32601 answer, not 202', async () => {
      const response = await post('{"id":7,"method":"notifications/initialized","jsonrpc":"2.0"}');
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32601, 7);
    });
  });

  describe('A. params', () => {
    it('tools/call without params → -32602', async () => {
      const response = await post(rpc(1, 'tools/call'));
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32602, 1);
      expect(response.json.error.data.detail).toContain('name');
    });

    it('tools/call without name → -32602 naming it', async () => {
      const response = await post(rpc(2, 'tools/call', { arguments: { text: 'x' } }));
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32602, 2);
      expect(response.json.error.data.detail).toContain('name');
    });

    it('tools/call with a non-string name → -32602', async () => {
      const response = await post(rpc(3, 'tools/call', { name: 42 }));
      expectRpcError(response.json, -32602, 3);
    });

    it.each([
      ['"str"', '"str"'],
      ['[]', '[]'],
      ['a number', '5'],
    ])(
      'tools/call with params %s (not an object) → 200 -32602 naming params (docs/errors.md)',
      async (_name, rawParams) => {
        const response = await post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":${rawParams}}`);
        expect(response.status).toBe(200);
        expectRpcError(response.json, -32602, 4);
        expect(response.json.error.data.detail).toContain('params');
        await expectServing();
      },
    );

    it('tools/call with arguments that are not an object → -32602', async () => {
      const response = await post(rpc(5, 'tools/call', { name: 'echo', arguments: 'text' }));
      expectRpcError(response.json, -32602, 5);
      expect(response.json.error.data.detail).toContain('arguments');
    });

    it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty'])('tool name %s → -32602', async (name) => {
      const response = await post(rpc(6, 'tools/call', { name, arguments: {} }));
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32602, 6);
      await expectServing();
    });

    it('unknown tool → -32602 (never -32601)', async () => {
      const response = await post(rpc(7, 'tools/call', { name: 'nope', arguments: {} }));
      expectRpcError(response.json, -32602, 7);
    });

    it('resources/read without uri → -32602 with data.detail naming uri', async () => {
      const response = await post(rpc(10, 'resources/read', {}));
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32602, 10);
      expect(typeof response.json.error.data.detail).toBe('string');
      expect(response.json.error.data.detail).toContain('uri');
    });

    it('resources/read without params → -32602 naming uri', async () => {
      const response = await post(rpc(11, 'resources/read'));
      expectRpcError(response.json, -32602, 11);
      expect(response.json.error.data.detail).toContain('uri');
    });

    it('resources/read with a non-string uri → -32602 naming uri', async () => {
      const response = await post(rpc(12, 'resources/read', { uri: 42 }));
      expectRpcError(response.json, -32602, 12);
      expect(response.json.error.data.detail).toContain('uri');
    });

    it('resources/read of an unknown resource → -32002 with data.uri', async () => {
      const uri = 'system://does-not-exist';
      const response = await post(rpc(13, 'resources/read', { uri }));
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32002, 13);
      expect(response.json.error.data).toEqual(expect.objectContaining({ uri, detail: expect.any(String) }));
    });

    it.each(['toString', '__proto__', 'constructor', 'SYSTEM://INFO'])('resources/read of %s → -32002', async (uri) => {
      const response = await post(rpc(14, 'resources/read', { uri }));
      expectRpcError(response.json, -32002, 14);
      expect(response.json.error.data.uri).toBe(uri);
    });

    it.each(['toString', '__proto__', 'constructor'])('prompts/get of %s → -32602', async (name) => {
      const response = await post(rpc(15, 'prompts/get', { name, arguments: {} }));
      expectRpcError(response.json, -32602, 15);
    });

    it.each([
      ['tools/list', 'not a cursor!'],
      ['resources/list', 'not a cursor!'],
      ['prompts/list', 'not a cursor!'],
      ['tools/list', 'Zm9vYmFy'], // well-formed base64url, but not one of ours
      ['resources/list', 42],
      ['tools/list', ''],
    ])('%s with an invalid cursor %p → -32602', async (method, cursor) => {
      const response = await post(rpc(16, method, { cursor }));
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32602, 16);
    });

    it('initialize without protocolVersion on a fresh connection → -32602', async () => {
      const response = await rawPost(
        endpoint,
        rpc(17, 'initialize', { capabilities: {}, clientInfo: { name: 'x', version: '1' } }),
      );
      expectRpcError(response.json, -32602, 17);
    });
  });

  describe('A. tool argument validation', () => {
    it('add with {a:"x"} on a 2025-11-25 session → isError result naming a', async () => {
      const response = await post(rpc(20, 'tools/call', { name: 'add', arguments: { a: 'x', b: 1 } }));
      expect(response.status).toBe(200);
      expect(response.json.error).toBeUndefined();
      const result = response.json.result;
      expect(result.isError).toBe(true);
      expect(result.content[0].type).toBe('text');
      expect(result.content[0].text).toMatch(/\ba\b/);
      expect(result.structuredContent).toBeUndefined();
    });

    it('add with {a:"x"} on a 2025-06-18 session → -32602', async () => {
      const { headers } = await openSession(endpoint, '2025-06-18');
      const response = await rawPost(
        endpoint,
        rpc(21, 'tools/call', { name: 'add', arguments: { a: 'x', b: 1 } }),
        headers,
      );
      expect(response.status).toBe(200);
      expectRpcError(response.json, -32602, 21);
      expect(JSON.stringify(response.json.error.data)).toMatch(/\ba\b/);
    });

    it('add with a missing argument on a 2025-11-25 session → isError result naming it', async () => {
      const response = await post(rpc(22, 'tools/call', { name: 'add', arguments: { a: 1 } }));
      expect(response.json.result.isError).toBe(true);
      expect(response.json.result.content[0].text).toMatch(/\bb\b/);
    });

    it('arguments carrying __proto__ / constructor keys: the server answers correctly and nothing is polluted', async () => {
      const polluting =
        '{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"echo","arguments":{"text":"safe","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}}}';
      const response = await post(polluting);
      expect(response.status).toBe(200);
      expect(response.json.id).toBe(23);
      expect(response.json.error).toBeUndefined();
      // Either the extra keys are refused (isError, additionalProperties: false) or ignored.
      if (response.json.result.isError) {
        expect(response.json.result.content[0].text).toEqual(expect.any(String));
      } else {
        expect(response.json.result.structuredContent).toEqual({ text: 'safe' });
      }

      const onlyProto = await post(
        '{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"text":"from-proto"}}}}',
      );
      expect(onlyProto.status).toBe(200);
      expect(onlyProto.json.id).toBe(24);
      // A text inherited through __proto__ must not count as the required argument.
      expect(onlyProto.json.result?.structuredContent).not.toEqual({ text: 'from-proto' });

      // The gateway runs in this process: Object.prototype must be untouched.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).text).toBeUndefined();

      const echo = await post(rpc(25, 'tools/call', { name: 'echo', arguments: { text: 'after' } }));
      expect(echo.json.result.structuredContent).toEqual({ text: 'after' });
      const add = await post(rpc(26, 'tools/call', { name: 'add', arguments: { a: 2, b: 2 } }));
      expect(add.json.result.structuredContent).toEqual({ sum: 4 });
    });
  });

  describe('A. encoding and body size', () => {
    it('invalid UTF-8 bytes (0xFF 0xFE) → 400 -32700', async () => {
      const body = Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}}'),
      ]);
      const response = await wireRequest(endpoint, { headers: mcpPostHeaders(session), body });
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32700, null);
      await expectServing();
    });

    it('a multi-byte character split across two TCP writes decodes correctly', async () => {
      const text = 'price: 5€ and 🚀';
      const body = Buffer.from(JSON.stringify(rpc(30, 'tools/call', { name: 'echo', arguments: { text } })), 'utf8');
      const euro = body.indexOf(Buffer.from('€', 'utf8'));
      expect(euro).toBeGreaterThan(0);
      const cut = euro + 1; // inside the three bytes of '€'
      const response = await wireRequest(endpoint, {
        headers: { ...mcpPostHeaders(session), 'content-length': body.length },
        chunks: [body.subarray(0, cut), body.subarray(cut)],
      });
      expect(response.status).toBe(200);
      expect(response.json.id).toBe(30);
      expect(response.json.result.structuredContent).toEqual({ text });
      expect(JSON.parse(response.json.result.content[0].text)).toEqual({ text });
    });

    it('the same split over a chunked body decodes correctly', async () => {
      const text = '€€€';
      const body = Buffer.from(JSON.stringify(rpc(31, 'tools/call', { name: 'echo', arguments: { text } })), 'utf8');
      const cut = body.indexOf(Buffer.from('€', 'utf8')) + 2;
      const response = await wireRequest(endpoint, {
        headers: { ...mcpPostHeaders(session), 'transfer-encoding': 'chunked' },
        chunks: [body.subarray(0, cut), body.subarray(cut)],
      });
      expect(response.status).toBe(200);
      expect(response.json.result.structuredContent).toEqual({ text });
    });

    it('a lone surrogate escape (\\ud800) is text like any other: echoed back, escaped the same way', async () => {
      const response = await post(loneSurrogateEcho(32));
      expect(response.status).toBe(200);
      expect(response.json).toEqual(loneSurrogateAnswer(32));
      expect(response.text).toContain(LONE_SURROGATE_ON_THE_WIRE);
      await expectServing();
    });

    it.each([
      ['with Content-Length', true],
      ['chunked (no Content-Length)', false],
    ])('an oversized body %s (4 MiB + 1) → 413 with a JSON-RPC error body', async (_label, declareLength) => {
      const response = await wireOversizedPost(endpoint, LIMIT + 1, mcpPostHeaders(session), { declareLength });
      expect(response.status).toBe(413);
      expect(response.json).toEqual(
        expect.objectContaining({
          jsonrpc: '2.0',
          id: null,
          error: expect.objectContaining({ code: expect.any(Number) }),
        }),
      );
      await expectServing();
    });

    it('a body just under the limit is still read (and answered)', async () => {
      const text = 'y'.repeat(LIMIT - 200);
      const body = JSON.stringify(rpc(33, 'tools/call', { name: 'echo', arguments: { text } }));
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(LIMIT);
      const response = await post(body);
      expect(response.status).toBe(200);
      expect(response.json.result.structuredContent.text).toHaveLength(text.length);
    });
  });

  describe('C. session ids that are not ids', () => {
    it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty', 'prototype'])(
      'MCP-Session-Id: %s → 404 on POST, GET and DELETE (never 500)',
      async (id) => {
        const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
        expect((await rawPost(endpoint, rpc(1, 'ping'), headers)).status).toBe(404);
        expect((await rawRequest(endpoint, 'GET', { ...headers, accept: 'text/event-stream' })).status).toBe(404);
        expect((await rawRequest(endpoint, 'DELETE', headers)).status).toBe(404);
      },
    );

    it('a 10 KB session id → 404 or 400, never 500', async () => {
      const headers = { 'mcp-session-id': 'a'.repeat(10 * 1024), 'mcp-protocol-version': '2025-11-25' };
      const response = await rawPost(endpoint, rpc(1, 'ping'), headers);
      expect([400, 404]).toContain(response.status);
      const get = await rawRequest(endpoint, 'GET', { ...headers, accept: 'text/event-stream' });
      expect([400, 404]).toContain(get.status);
      await expectServing();
    });

    it('a session id with a tab inside → 404 or 400', async () => {
      const response = await wireRequest(endpoint, {
        headers: mcpPostHeaders({ 'mcp-session-id': 'abc\tdef-0123456789abcdef0123456789' }),
        body: JSON.stringify(rpc(1, 'ping')),
      });
      expect([400, 404]).toContain(response.status);
      await expectServing();
    });

    it('a session id with non-ASCII bytes → 404 or 400', async () => {
      const response = await wireRequest(endpoint, {
        headers: mcpPostHeaders({ 'mcp-session-id': 'caf\u00e9-0123456789abcdef0123456789' }),
        body: JSON.stringify(rpc(1, 'ping')),
      });
      expect([400, 404]).toContain(response.status);
    });

    it.each([
      ['\\x01', '\x01'],
      ['DEL', '\x7f'],
    ])('a session id with the control character %s → 404 or 400, never 500', async (_name, char) => {
      const { host } = new URL(endpoint);
      const body = JSON.stringify(rpc(1, 'ping'));
      const { status } = await rawSocketStatus(
        gateway.origin,
        [
          'POST /mcp HTTP/1.1',
          `Host: ${host}`,
          'Content-Type: application/json',
          `Accept: ${ACCEPT_BOTH}`,
          `MCP-Session-Id: abc${char}def0123456789abcdef0123456789`,
        ].join('\r\n'),
        body,
      );
      expect([400, 404]).toContain(status);
      await expectServing();
    });
  });

  describe('C. Origin and Host (DNS rebinding)', () => {
    const postWith = (headers: Record<string, string>) =>
      wireRequest(endpoint, {
        headers: mcpPostHeaders({ ...session, ...headers }),
        body: JSON.stringify(rpc(1, 'ping')),
      });

    it.each(['http://evil.example', 'null', 'https://localhost.evil.example', 'http://127.0.0.1.evil.example:80'])(
      'Origin: %s → 403 on POST, GET and DELETE',
      async (origin) => {
        const postResponse = await postWith({ origin });
        expect(postResponse.status).toBe(403);
        const get = await wireRequest(endpoint, {
          method: 'GET',
          headers: { ...session, accept: 'text/event-stream', origin },
        });
        expect(get.status).toBe(403);
        const del = await wireRequest(endpoint, { method: 'DELETE', headers: { ...session, origin } });
        expect(del.status).toBe(403);
        // The refused DELETE did not end the session.
        await expectServing();
      },
    );

    it('Origin: null on initialize → 403 and no session is created', async () => {
      const response = await wireRequest(endpoint, {
        headers: mcpPostHeaders({ origin: 'null' }),
        body: JSON.stringify(
          rpc(1, 'initialize', {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          }),
        ),
      });
      expect(response.status).toBe(403);
      expect(response.headers['mcp-session-id']).toBeUndefined();
    });

    it('Host: evil.example:5000 → 403 on POST (initialize), GET and DELETE', async () => {
      const host = 'evil.example:5000';
      const init = await wireRequest(endpoint, {
        headers: mcpPostHeaders({ host, origin: 'http://evil.example:5000' }),
        body: JSON.stringify(
          rpc(1, 'initialize', {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          }),
        ),
      });
      expect(init.status).toBe(403);
      expect(init.headers['mcp-session-id']).toBeUndefined();
      expect((await postWith({ host })).status).toBe(403);
      expect(
        (await wireRequest(endpoint, { method: 'GET', headers: { ...session, host, accept: 'text/event-stream' } }))
          .status,
      ).toBe(403);
      expect((await wireRequest(endpoint, { method: 'DELETE', headers: { ...session, host } })).status).toBe(403);
      await expectServing();
    });

    it('a CORS preflight (OPTIONS) from http://evil.example → 403 (a preflight gets the same Origin check)', async () => {
      const response = await wireRequest(endpoint, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, mcp-session-id',
        },
      });
      expect(response.status).toBe(403);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('no Origin and a localhost Host → 200', async () => {
      const { port } = new URL(endpoint);
      const response = await postWith({ host: `localhost:${port}` });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    });

    it('a local Origin (http://localhost:<port>) → 200', async () => {
      const { port } = new URL(endpoint);
      const response = await postWith({ origin: `http://localhost:${port}` });
      expect(response.status).toBe(200);
    });
  });

  describe('C. concurrency: identical ids across sessions never cross', () => {
    it('200 concurrent echo calls over 20 sessions reusing ids 1..10 each get their own answer', async () => {
      const sessions = await Promise.all(Array.from({ length: 20 }, () => openSession(endpoint, '2025-11-25')));
      const calls = sessions.flatMap(({ headers }, s) =>
        Array.from({ length: 10 }, (_, i) => {
          const id = i + 1;
          const text = `session-${s}-secret-${headers['mcp-session-id'].slice(0, 8)}-call-${id}`;
          return rawPost(endpoint, rpc(id, 'tools/call', { name: 'echo', arguments: { text } }), headers).then(
            (response) => ({ response, id, text, sessionId: headers['mcp-session-id'] }),
          );
        }),
      );
      const results = await Promise.all(calls);
      expect(results).toHaveLength(200);
      for (const { response, id, text, sessionId } of results) {
        expect(response.status).toBe(200);
        expect(response.json.id).toBe(id);
        expect(response.json.result.structuredContent).toEqual({ text });
        const echoed = response.headers.get('mcp-session-id');
        if (echoed !== null) expect(echoed).toBe(sessionId);
      }
      await Promise.all(sessions.map(({ headers }) => rawRequest(endpoint, 'DELETE', headers)));
    });
  });
});
