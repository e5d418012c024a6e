/**
 * Streamable HTTP on the wire (docs/transports.md, docs/decisions/0004-sessions.md): sessions, the
 * GET stream, HTTP methods, content negotiation, the protocol version header, initialize and
 * batches.
 */
import { GATEWAY_CAPABILITIES, startGateway, type RunningGateway } from '../support/gateway-app.js';
import { ACCEPT_BOTH, initializeRequest, openSession, parseSse, rawPost, rawRequest } from '../support/raw-http.js';
import { openSse, rpc, within, wireRequest, type OpenSse } from '../support/http-wire.js';

const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
const VISIBLE_ASCII_ID = /^[\x21-\x7E]{32,}$/;

/** Expects a JSON-RPC error response with that code. */
function expectRpcError(json: any, code: number, id: unknown = null): void {
  expect(json).toEqual(
    expect.objectContaining({
      jsonrpc: '2.0',
      id,
      error: expect.objectContaining({ code, message: expect.any(String) }),
    }),
  );
}

describe('Streamable HTTP transport (sessions on)', () => {
  let gateway: RunningGateway;
  let endpoint: string;
  const streams: OpenSse[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
    endpoint = gateway.endpoint;
  });

  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const sse = async (headers: Record<string, string>): Promise<OpenSse> => {
    const stream = await openSse(endpoint, { headers, timeoutMs: 3_000 });
    streams.push(stream);
    return stream;
  };

  describe('initialize and session ids', () => {
    it('returns a visible-ASCII MCP-Session-Id of at least 32 characters, and echoes a numeric id', async () => {
      const response = await rawPost(endpoint, initializeRequest(1));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const sessionId = response.headers.get('mcp-session-id');
      expect(sessionId).toMatch(VISIBLE_ASCII_ID);
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: expect.objectContaining({
          protocolVersion: '2025-11-25',
          capabilities: GATEWAY_CAPABILITIES,
          serverInfo: expect.objectContaining({ name: 'mcp-resource-gateway', version: '0.1.0' }),
        }),
      });
    });

    it('echoes a string id "1" as a string', async () => {
      const response = await rawPost(endpoint, initializeRequest('1'));
      expect(response.status).toBe(200);
      expect(response.json.id).toBe('1');
      expect(typeof response.json.id).toBe('string');
    });

    it('mints a different id for every session', async () => {
      const ids = await Promise.all(
        Array.from({ length: 20 }, async () =>
          (await rawPost(endpoint, initializeRequest(1))).headers.get('mcp-session-id'),
        ),
      );
      for (const id of ids) expect(id).toMatch(VISIBLE_ASCII_ID);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('negotiates each supported version by echoing it', async () => {
      for (const version of SUPPORTED) {
        const response = await rawPost(endpoint, initializeRequest(1, version));
        expect(response.status).toBe(200);
        expect(response.json.result.protocolVersion).toBe(version);
      }
    });

    it.each(['2024-11-05', 'garbage', '2026-07-28'])(
      'answers 2025-11-25 when the client asks for %s',
      async (version) => {
        const response = await rawPost(endpoint, initializeRequest(1, version));
        expect(response.status).toBe(200);
        expect(response.json.result.protocolVersion).toBe('2025-11-25');
      },
    );

    it('missing protocolVersion → -32602', async () => {
      const response = await rawPost(endpoint, {
        jsonrpc: '2.0',
        id: 5,
        method: 'initialize',
        params: { capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      expectRpcError(response.json, -32602, 5);
      expect(JSON.stringify(response.json.error.data)).toContain('protocolVersion');
      expect(response.headers.get('mcp-session-id')).toBeNull();
    });

    it('a second initialize on a live session → 400 -32600, and the session still works', async () => {
      const { sessionId, headers } = await openSession(endpoint);
      const again = await rawPost(endpoint, initializeRequest(9), headers);
      expect(again.status).toBe(400);
      expectRpcError(again.json, -32600, 9);
      const issued = again.headers.get('mcp-session-id');
      if (issued !== null) expect(issued).toBe(sessionId);

      const ping = await rawPost(endpoint, rpc(10, 'ping'), headers);
      expect(ping.status).toBe(200);
      expect(ping.json).toEqual({ jsonrpc: '2.0', id: 10, result: {} });
      const list = await rawPost(endpoint, rpc(11, 'tools/list'), headers);
      expect(list.status).toBe(200);
      expect(list.json.result.tools.map((tool: { name: string }) => tool.name)).toEqual(
        expect.arrayContaining(['add', 'echo']),
      );
    });

    it('initialize carrying an attacker-chosen MCP-Session-Id gets a fresh server-minted id; the chosen one stays unknown', async () => {
      const chosen = 'attacker-chosen-session-id-0123456789abcdef';
      const response = await rawPost(endpoint, initializeRequest(1), { 'mcp-session-id': chosen });
      expect([200, 400, 404]).toContain(response.status);
      if (response.status === 200) {
        const minted = response.headers.get('mcp-session-id');
        expect(minted).toMatch(VISIBLE_ASCII_ID);
        expect(minted).not.toBe(chosen);
        const own = await rawPost(endpoint, rpc(2, 'ping'), {
          'mcp-session-id': minted!,
          'mcp-protocol-version': '2025-11-25',
        });
        expect(own.status).toBe(200);
      }
      const reuse = await rawPost(endpoint, rpc(3, 'ping'), {
        'mcp-session-id': chosen,
        'mcp-protocol-version': '2025-11-25',
      });
      expect(reuse.status).toBe(404);
      const get = await rawRequest(endpoint, 'GET', { 'mcp-session-id': chosen, accept: 'text/event-stream' });
      expect(get.status).toBe(404);
    });
  });

  describe('session header on POST, GET and DELETE', () => {
    it('POST without MCP-Session-Id → 400 -32000 "Session required", echoing a numeric id', async () => {
      const response = await rawPost(endpoint, rpc(42, 'tools/list'));
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32000, 42);
      expect(response.json.error.message).toBe('Session required');
    });

    it('POST without MCP-Session-Id echoes a string id too', async () => {
      const response = await rawPost(endpoint, rpc('abc', 'tools/list'));
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32000, 'abc');
      expect(response.json.error.message).toBe('Session required');
    });

    it('unknown session id → 404 on POST, GET and DELETE', async () => {
      const headers = {
        'mcp-session-id': 'no-such-session-0123456789abcdefghijkl',
        'mcp-protocol-version': '2025-11-25',
      };
      const post = await rawPost(endpoint, rpc(1, 'ping'), headers);
      expect(post.status).toBe(404);
      expect(post.json?.error).toBeDefined();
      expect((await rawRequest(endpoint, 'GET', { ...headers, accept: 'text/event-stream' })).status).toBe(404);
      expect((await rawRequest(endpoint, 'DELETE', headers)).status).toBe(404);
    });

    it('GET without MCP-Session-Id → 400', async () => {
      const response = await rawRequest(endpoint, 'GET', { accept: 'text/event-stream' });
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32000);
    });

    it('DELETE without MCP-Session-Id → 400', async () => {
      const response = await rawRequest(endpoint, 'DELETE', {});
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32000);
    });

    it('DELETE → 204 with an empty body; afterwards POST, GET and DELETE with that id → 404', async () => {
      const { headers } = await openSession(endpoint);
      const deleted = await rawRequest(endpoint, 'DELETE', headers);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');

      const post = await rawPost(endpoint, rpc(1, 'ping'), headers);
      expect(post.status).toBe(404);
      expectRpcError(post.json, post.json?.error?.code, 1);
      expect((await rawRequest(endpoint, 'GET', { ...headers, accept: 'text/event-stream' })).status).toBe(404);
      expect((await rawRequest(endpoint, 'DELETE', headers)).status).toBe(404);
    });
  });

  describe('GET stream', () => {
    it('GET with a session → 200 text/event-stream, no-cache, stays open', async () => {
      const { sessionId, headers } = await openSession(endpoint);
      const stream = await sse({ ...headers, accept: 'text/event-stream' });
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.headers['cache-control']).toContain('no-cache');
      expect(stream.headers['mcp-session-id']).toBe(sessionId);
      // The session is alive and usable while its stream is open.
      const ping = await rawPost(endpoint, rpc(2, 'ping'), headers);
      expect(ping.status).toBe(200);
    });

    it('a second GET on the same session replaces the first (the first stream ends)', async () => {
      const { headers } = await openSession(endpoint);
      const first = await sse({ ...headers, accept: 'text/event-stream' });
      expect(first.status).toBe(200);
      const second = await sse({ ...headers, accept: 'text/event-stream' });
      expect(second.status).toBe(200);
      await within(first.ended, 3_000, 'the first GET stream to end');
      // The replacement is live: the session still answers.
      const ping = await rawPost(endpoint, rpc(3, 'ping'), headers);
      expect(ping.status).toBe(200);
    });

    it('DELETE closes the open GET stream of the session', async () => {
      const { headers } = await openSession(endpoint);
      const stream = await sse({ ...headers, accept: 'text/event-stream' });
      expect(stream.status).toBe(200);
      expect((await rawRequest(endpoint, 'DELETE', headers)).status).toBe(204);
      await within(stream.ended, 3_000, 'the GET stream to end after DELETE');
    });

    it.each(['application/json', 'text/html'])('GET with Accept: %s → 406', async (accept) => {
      const { headers } = await openSession(endpoint);
      const response = await rawRequest(endpoint, 'GET', { ...headers, accept });
      expect(response.status).toBe(406);
    });
  });

  describe('HTTP methods', () => {
    it.each(['PUT', 'PATCH'])('%s → 405 with Allow: GET, POST, DELETE', async (method) => {
      const { headers } = await openSession(endpoint);
      const response = await wireRequest(endpoint, {
        method,
        headers: { ...headers, 'content-type': 'application/json', accept: ACCEPT_BOTH },
        body: JSON.stringify(rpc(1, 'ping')),
      });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, POST, DELETE');
    });

    it('HEAD → 405', async () => {
      const { headers } = await openSession(endpoint);
      const response = await wireRequest(endpoint, {
        method: 'HEAD',
        headers: { ...headers, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, POST, DELETE');
    });
  });

  describe('POST bodies that need no answer', () => {
    it('a notification → 202 with an empty body', async () => {
      const { headers } = await openSession(endpoint);
      const response = await rawPost(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
    });

    it('an unknown notification → 202 with an empty body', async () => {
      const { headers } = await openSession(endpoint);
      const response = await rawPost(
        endpoint,
        { jsonrpc: '2.0', method: 'notifications/whatever', params: {} },
        headers,
      );
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
    });

    it('a JSON-RPC response object → 202 with an empty body', async () => {
      const { headers } = await openSession(endpoint);
      const result = await rawPost(endpoint, { jsonrpc: '2.0', id: 'srv-1', result: {} }, headers);
      expect(result.status).toBe(202);
      expect(result.text).toBe('');
      const error = await rawPost(
        endpoint,
        { jsonrpc: '2.0', id: 77, error: { code: -32601, message: 'nope' } },
        headers,
      );
      expect(error.status).toBe(202);
      expect(error.text).toBe('');
    });
  });

  describe('content negotiation', () => {
    let headers: Record<string, string>;
    beforeAll(async () => {
      ({ headers } = await openSession(endpoint));
    });

    it('Accept: application/json only → a JSON answer', async () => {
      const response = await rawPost(endpoint, rpc(1, 'ping'), { ...headers, accept: 'application/json' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    });

    it('Accept: text/event-stream only → one SSE "message" event carrying the response', async () => {
      const response = await rawPost(endpoint, rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'sse' } }), {
        ...headers,
        accept: 'text/event-stream',
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = parseSse(response.text).filter((event) => event.data.trim() !== '');
      expect(events).toHaveLength(1);
      expect(events[0].event).toBe('message');
      expect(JSON.parse(events[0].data)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: expect.objectContaining({ structuredContent: { text: 'sse' } }),
      });
    });

    it('the SSE answer event carries an id line, as every SSE event does', async () => {
      const response = await rawPost(endpoint, rpc(20, 'ping'), { ...headers, accept: 'text/event-stream' });
      expect(response.status).toBe(200);
      const message = parseSse(response.text).find((event) => event.event === 'message');
      expect(message).toBeDefined();
      expect(message!.id).toEqual(expect.stringMatching(/^\S+$/));
    });

    it('no Accept header at all → answered (lenient)', async () => {
      const response = await wireRequest(endpoint, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(rpc(3, 'ping')),
      });
      expect(response.status).toBe(200);
      const body = response.headers['content-type']?.startsWith('text/event-stream')
        ? JSON.parse(parseSse(response.text).find((event) => event.data.trim())!.data)
        : response.json;
      expect(body).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    });

    it('Accept: */* → answered', async () => {
      const response = await rawPost(endpoint, rpc(4, 'ping'), { ...headers, accept: '*/*' });
      expect(response.status).toBe(200);
    });

    it('Accept: text/html → 406', async () => {
      const response = await rawPost(endpoint, rpc(5, 'ping'), { ...headers, accept: 'text/html' });
      expect(response.status).toBe(406);
      expect(response.json?.error).toBeDefined();
    });

    it('Content-Type: text/plain → 415', async () => {
      const response = await rawPost(endpoint, JSON.stringify(rpc(6, 'ping')), {
        ...headers,
        'content-type': 'text/plain',
      });
      expect(response.status).toBe(415);
      expect(response.json?.error).toBeDefined();
    });

    it('Content-Type: application/json; charset=utf-8 is accepted', async () => {
      const response = await rawPost(endpoint, rpc(7, 'ping'), {
        ...headers,
        'content-type': 'application/json; charset=utf-8',
      });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    });
  });

  describe('MCP-Protocol-Version header', () => {
    let sessionId: string;
    beforeAll(async () => {
      ({ sessionId } = await openSession(endpoint));
    });

    it('an unsupported version (1999-01-01) → 400', async () => {
      const response = await rawPost(endpoint, rpc(1, 'ping'), {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '1999-01-01',
      });
      expect(response.status).toBe(400);
      expect(response.json?.error).toBeDefined();
    });

    it('an unsupported version on GET → 400', async () => {
      const response = await rawRequest(endpoint, 'GET', {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '1999-01-01',
        accept: 'text/event-stream',
      });
      expect(response.status).toBe(400);
    });

    it.each(SUPPORTED)('%s is accepted on the session', async (version) => {
      const response = await rawPost(endpoint, rpc(2, 'ping'), {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': version,
      });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    });

    it('is ignored on initialize itself (it is where the version is negotiated): an unsupported value does not block it', async () => {
      const response = await rawPost(endpoint, initializeRequest(1, '2025-06-18'), {
        'mcp-protocol-version': '1999-01-01',
      });
      expect(response.status).toBe(200);
      expect(response.json.result.protocolVersion).toBe('2025-06-18');
      expect(response.headers.get('mcp-session-id')).toMatch(VISIBLE_ASCII_ID);
    });

    it('header absent → served', async () => {
      const response = await rawPost(endpoint, rpc(3, 'tools/list'), { 'mcp-session-id': sessionId });
      expect(response.status).toBe(200);
      expect(response.json.result.tools.map((tool: { name: string }) => tool.name)).toEqual(
        expect.arrayContaining(['add', 'echo']),
      );
    });
  });

  describe('JSON-RPC batches', () => {
    it('on a 2025-03-26 session a batch of two requests → an array of two responses', async () => {
      const { headers } = await openSession(endpoint, '2025-03-26');
      expect(headers['mcp-protocol-version']).toBe('2025-03-26');
      const response = await rawPost(
        endpoint,
        [rpc(1, 'ping'), rpc('two', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })],
        headers,
      );
      expect(response.status).toBe(200);
      expect(Array.isArray(response.json)).toBe(true);
      expect(response.json).toHaveLength(2);
      const byId = new Map((response.json as any[]).map((item) => [item.id, item]));
      expect(byId.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      expect(byId.get('two').result.structuredContent).toEqual({ sum: 3 });
    });

    it('on a 2025-03-26 session a batch of notifications only → 202', async () => {
      const { headers } = await openSession(endpoint, '2025-03-26');
      const response = await rawPost(endpoint, [{ jsonrpc: '2.0', method: 'notifications/initialized' }], headers);
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
    });

    it('on a 2025-03-26 session an empty batch [] → a single -32600', async () => {
      const { headers } = await openSession(endpoint, '2025-03-26');
      const response = await rawPost(endpoint, [], headers);
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32600, null);
    });

    it('on a 2025-03-26 session a batch containing initialize → 400 -32600', async () => {
      const { headers } = await openSession(endpoint, '2025-03-26');
      const response = await rawPost(endpoint, [initializeRequest(1, '2025-03-26'), rpc(2, 'ping')], headers);
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32600, null);
    });

    it('on a 2025-03-26 session an invalid element gets its own -32600 next to the valid answers', async () => {
      const { headers } = await openSession(endpoint, '2025-03-26');
      const response = await rawPost(endpoint, [rpc(1, 'ping'), { jsonrpc: '1.0', id: 2, method: 'ping' }], headers);
      expect(response.status).toBe(200);
      const byId = new Map((response.json as any[]).map((item) => [item.id, item]));
      expect(byId.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      expect(byId.get(2).error.code).toBe(-32600);
    });

    it.each(['2025-11-25', '2025-06-18'])('a batch on a %s session → 400 -32600', async (version) => {
      const { headers } = await openSession(endpoint, version);
      const response = await rawPost(endpoint, [rpc(1, 'ping'), rpc(2, 'ping')], headers);
      expect(response.status).toBe(400);
      expectRpcError(response.json, -32600, null);
    });
  });
});

describe('Streamable HTTP transport, stateless (MCP_STATELESS=1)', () => {
  let gateway: RunningGateway;
  let endpoint: string;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_STATELESS: '1' });
    endpoint = gateway.endpoint;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('initialize issues no session id', async () => {
    const response = await rawPost(endpoint, initializeRequest(1));
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.json.result.protocolVersion).toBe('2025-11-25');
  });

  it('tools/call works without initialize or session', async () => {
    const response = await rawPost(endpoint, rpc(1, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }), {
      'mcp-protocol-version': '2025-11-25',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.json.result.structuredContent).toEqual({ sum: 5 });
  });

  it("concurrent calls with the same id never receive each other's answers", async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `stateless-secret-${i}`);
    const responses = await Promise.all(
      texts.map((text) =>
        rawPost(endpoint, rpc(1, 'tools/call', { name: 'echo', arguments: { text } }), {
          'mcp-protocol-version': '2025-11-25',
        }),
      ),
    );
    responses.forEach((response, i) => {
      expect(response.status).toBe(200);
      expect(response.json.id).toBe(1);
      expect(response.json.result.structuredContent).toEqual({ text: texts[i] });
    });
  });

  it('GET → 405', async () => {
    const response = await rawRequest(endpoint, 'GET', { accept: 'text/event-stream' });
    expect(response.status).toBe(405);
  });

  it('DELETE → 405', async () => {
    const response = await rawRequest(endpoint, 'DELETE', { 'mcp-session-id': 'anything-at-all-0123456789abcdef' });
    expect(response.status).toBe(405);
  });
});

describe('Streamable HTTP transport with MCP_PROTOCOL_VERSION=2025-06-18', () => {
  let gateway: RunningGateway;
  let endpoint: string;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_PROTOCOL_VERSION: '2025-06-18' });
    endpoint = gateway.endpoint;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', 'garbage'])(
    'initialize reports 2025-06-18 when the client asks for %s',
    async (requested) => {
      const response = await rawPost(endpoint, initializeRequest(1, requested));
      expect(response.status).toBe(200);
      expect(response.json.result.protocolVersion).toBe('2025-06-18');
    },
  );

  it.each(SUPPORTED)('all versions stay accepted in the header (%s)', async (version) => {
    const { sessionId } = await openSession(endpoint);
    const response = await rawPost(endpoint, rpc(1, 'ping'), {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': version,
    });
    expect(response.status).toBe(200);
  });
});
