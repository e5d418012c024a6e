/**
 * Bad input per protocol era over raw Streamable HTTP (MCP 2026-07-28 and
 * docs/decisions/0003-two-protocol-eras-on-one-endpoint.md), with
 * exact HTTP statuses and JSON-RPC error codes: the modern `_meta` envelope, the modern headers
 * against the body, unsupported versions, session ids and `_meta` crossing eras,
 * `subscriptions/listen` filters, and MRTR `requestState` / `inputResponses`. After each bad
 * input the server keeps serving both eras. (The legacy era's own framing, parameter and body
 * checks are in http-bad-input.e2e-spec.ts.)
 */
import { ResourceNotificationService } from '@app/mcp';
import { RequestStateCodec, digestParams } from '@app/mcp/protocol/modern/request-state.codec.js';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { openSse, rpc, within } from '../support/http-wire.js';
import { initializeRequest, openSession, parseSse, rawPost, type RawResponse } from '../support/raw-http.js';

const MODERN = '2026-07-28';
const VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';
const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';
/** The gateway signs requestState with this key, so a test can forge an expired but genuine one. */
const STATE_KEY = 'sdk-v2-bad-input-request-state-key';

const ENVELOPE = {
  [VERSION_META]: MODERN,
  [CAPABILITIES_META]: { elicitation: { form: {} } },
  [CLIENT_INFO_META]: { name: 'raw-modern', version: '1.0.0' },
};

/** The `Mcp-Name` of a method that has one. */
const nameOf = (method: string, params: Record<string, unknown>): string | undefined =>
  method === 'resources/read'
    ? (params.uri as string)
    : method === 'tools/call' || method === 'prompts/get'
      ? (params.name as string)
      : undefined;

/** The headers a modern client sends for this request. */
function modernHeaders(method: string, params: Record<string, unknown> = {}): Record<string, string> {
  const name = nameOf(method, params);
  return {
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  };
}

/** A modern request body: `params` with the standard envelope (or `_meta` as given). */
const modernBody = (id: number, method: string, params: Record<string, unknown> = {}) =>
  rpc(id, method, { ...params, _meta: params._meta ?? ENVELOPE });

function expectError(response: RawResponse, status: number, code: number, id: unknown): any {
  expect({ status: response.status, code: response.json?.error?.code, id: response.json?.id }).toEqual({
    status,
    code,
    id,
  });
  expect(response.json).not.toHaveProperty('result');
  return response.json.error;
}

describe('SDK v2 era bad input over raw Streamable HTTP', () => {
  let gateway: RunningGateway;
  let endpoint: string;
  let session: Record<string, string>;
  let ids = 100;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_REQUEST_STATE_KEYS: STATE_KEY });
    endpoint = gateway.endpoint;
    ({ headers: session } = await openSession(endpoint, '2025-11-25'));
  });

  afterAll(async () => {
    await gateway?.close();
  });

  /** A well-formed modern request, sent with its matching headers (plus `headers`). */
  const modern = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const id = ++ids;
    return rawPost(endpoint, modernBody(id, method, params), { ...modernHeaders(method, params), ...headers });
  };

  const callTool = (name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    modern('tools/call', { name, arguments: args, ...extra });

  /** Both eras still serve: a modern tools/call and a legacy ping on the shared session. */
  async function expectServing(): Promise<void> {
    const echoed = await callTool('echo', { text: 'still here' });
    expect(echoed.status).toBe(200);
    expect(echoed.json.result).toMatchObject({ resultType: 'complete', structuredContent: { text: 'still here' } });
    const id = ++ids;
    const ping = await rawPost(endpoint, rpc(id, 'ping'), session);
    expect(ping.status).toBe(200);
    expect(ping.json).toEqual({ jsonrpc: '2.0', id, result: {} });
  }

  describe('the _meta envelope', () => {
    it.each<[string, unknown]>([
      ['no _meta', undefined],
      ['_meta a string', 'garbled'],
      ['_meta an array', [MODERN]],
      ['no clientCapabilities', { [VERSION_META]: MODERN }],
      ['clientCapabilities a string', { [VERSION_META]: MODERN, [CAPABILITIES_META]: 'all' }],
      ['protocolVersion a number', { [VERSION_META]: 20260728, [CAPABILITIES_META]: {} }],
      ['protocolVersion empty', { [VERSION_META]: '', [CAPABILITIES_META]: {} }],
      ['clientInfo a string', { ...ENVELOPE, [CLIENT_INFO_META]: 'me' }],
      ['logLevel unknown', { ...ENVELOPE, [LOG_LEVEL_META]: 'loud' }],
    ])('%s → 400 -32602', async (_name, meta) => {
      const id = ++ids;
      const params: Record<string, unknown> = { name: 'echo', arguments: { text: 'x' } };
      if (meta !== undefined) params._meta = meta;
      // The version header alone makes the request modern when its _meta cannot.
      const response = await rawPost(endpoint, rpc(id, 'tools/call', params), modernHeaders('tools/call', params));
      expectError(response, 400, -32602, id);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      await expectServing();
    });

    it('params not an object on a modern request → 400 -32602', async () => {
      const id = ++ids;
      const response = await rawPost(
        endpoint,
        { jsonrpc: '2.0', id, method: 'tools/list', params: [1, 2] },
        modernHeaders('tools/list'),
      );
      expectError(response, 400, -32602, id);
      await expectServing();
    });
  });

  describe('headers against the body → 400 -32020', () => {
    it.each<[string, string, Record<string, unknown>, Record<string, string | undefined>]>([
      ['MCP-Protocol-Version missing', 'tools/list', {}, { 'mcp-protocol-version': undefined }],
      ['MCP-Protocol-Version a legacy version', 'tools/list', {}, { 'mcp-protocol-version': '2025-11-25' }],
      ['MCP-Protocol-Version another modern-looking one', 'tools/list', {}, { 'mcp-protocol-version': '2026-07-29' }],
      ['Mcp-Method missing', 'tools/list', {}, { 'mcp-method': undefined }],
      ['Mcp-Method another method', 'tools/list', {}, { 'mcp-method': 'prompts/list' }],
      ['Mcp-Method in another case', 'tools/list', {}, { 'mcp-method': 'Tools/List' }],
      [
        'Mcp-Name missing (tools/call)',
        'tools/call',
        { name: 'echo', arguments: { text: 'x' } },
        { 'mcp-name': undefined },
      ],
      ['Mcp-Name another tool', 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { 'mcp-name': 'add' }],
      ['Mcp-Name another prompt', 'prompts/get', { name: 'summarize', arguments: { text: 'x' } }, { 'mcp-name': 'x' }],
      ['Mcp-Name another URI', 'resources/read', { uri: 'system://info' }, { 'mcp-name': 'system://metrics' }],
      ['Mcp-Name missing (resources/read)', 'resources/read', { uri: 'system://info' }, { 'mcp-name': undefined }],
      [
        'Mcp-Name a malformed Base64 sentinel',
        'tools/call',
        { name: 'echo', arguments: {} },
        { 'mcp-name': '=?base64?@@@?=' },
      ],
      [
        'Mcp-Name a Base64 sentinel of another name',
        'tools/call',
        { name: 'echo', arguments: {} },
        { 'mcp-name': `=?base64?${Buffer.from('add').toString('base64')}?=` },
      ],
    ])('%s', async (_name, method, params, override) => {
      const id = ++ids;
      const headers: Record<string, string> = { ...modernHeaders(method, params) };
      for (const [header, value] of Object.entries(override)) {
        if (value === undefined) delete headers[header];
        else headers[header] = value;
      }
      const response = await rawPost(endpoint, modernBody(id, method, params), headers);
      expectError(response, 400, -32020, id);
      await expectServing();
    });

    it('the Base64 sentinel form of the right name is accepted', async () => {
      const response = await callTool('echo', { text: 'b64' }, {});
      expect(response.status).toBe(200);
      const id = ++ids;
      const params = { name: 'echo', arguments: { text: 'b64' } };
      const sentinel = await rawPost(endpoint, modernBody(id, 'tools/call', params), {
        ...modernHeaders('tools/call', params),
        'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=`,
      });
      expect(sentinel.status).toBe(200);
      expect(sentinel.json.result.structuredContent).toEqual({ text: 'b64' });
    });
  });

  describe('unsupported versions → 400 -32022 with data.supported', () => {
    it.each(['2099-01-01', '2025-11-25', 'garbage'])('_meta and header say %s', async (version) => {
      for (const method of ['server/discover', 'tools/list']) {
        const id = ++ids;
        const body = rpc(id, method, { _meta: { ...ENVELOPE, [VERSION_META]: version } });
        const response = await rawPost(endpoint, body, {
          ...modernHeaders(method),
          'mcp-protocol-version': version,
        });
        const error = expectError(response, 400, -32022, id);
        expect(error.data).toEqual(expect.objectContaining({ supported: [MODERN], requested: version }));
      }
      await expectServing();
    });
  });

  describe('session ids and _meta crossing eras', () => {
    it('a legacy Mcp-Session-Id on a modern request is ignored (neither looked up nor echoed)', async () => {
      for (const sessionId of [session['mcp-session-id'], 'no-such-session']) {
        const response = await modern('tools/list', {}, { 'mcp-session-id': sessionId });
        expect(response.status).toBe(200);
        expect(response.json.result).toMatchObject({ resultType: 'complete', tools: expect.any(Array) });
        expect(response.headers.get('mcp-session-id')).toBeNull();
      }
      await expectServing();
    });

    it('a modern _meta inside a legacy session is served as modern: with legacy headers → 400 -32020', async () => {
      const id = ++ids;
      const response = await rawPost(endpoint, modernBody(id, 'tools/list'), session);
      expectError(response, 400, -32020, id);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      await expectServing();
    });

    it('a modern _meta inside a legacy session, with modern headers: stateless, the session untouched', async () => {
      const response = await modern('tools/list', {}, { 'mcp-session-id': session['mcp-session-id'] });
      expect(response.status).toBe(200);
      expect(response.json.result.resultType).toBe('complete');
      await expectServing();
    });

    it('a legacy request with a non-modern _meta stays legacy (no resultType)', async () => {
      const id = ++ids;
      const response = await rawPost(endpoint, rpc(id, 'tools/list', { _meta: { progressToken: 7 } }), session);
      expect(response.status).toBe(200);
      expect(response.json.result).not.toHaveProperty('resultType');
      expect(response.json.result.tools).toEqual(expect.any(Array));
    });

    it.each<[string, Record<string, string>]>([
      ['MCP-Protocol-Version: 2026-07-28', { 'mcp-protocol-version': MODERN }],
      ['the modern headers', { 'mcp-protocol-version': MODERN, 'mcp-method': 'initialize' }],
    ])(
      'an initialize (no modern _meta) with %s starts a legacy session: the header is ignored on initialize',
      async (_name, headers) => {
        const id = ++ids;
        const response = await rawPost(endpoint, initializeRequest(id), headers);
        expect(response.status).toBe(200);
        expect(response.json.result.protocolVersion).toBe('2025-11-25');
        const sessionId = response.headers.get('mcp-session-id');
        expect(sessionId).toEqual(expect.any(String));
        const own = { 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' };
        const initialized = await rawPost(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, own);
        expect(initialized.status).toBe(202);
        const ping = await rawPost(endpoint, rpc(++ids, 'ping'), own);
        expect(ping.json).toEqual({ jsonrpc: '2.0', id: ids, result: {} });
        await expectServing();
      },
    );

    it('an initialize carrying the modern _meta is a modern request: 404 -32601, no session', async () => {
      const id = ++ids;
      const body = initializeRequest(id);
      const response = await rawPost(
        endpoint,
        { ...body, params: { ...body.params, _meta: ENVELOPE } },
        modernHeaders('initialize'),
      );
      expectError(response, 404, -32601, id);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      await expectServing();
    });

    it('resources/read of an unknown URI: -32602 with data exactly { uri } (modern); -32002 in a legacy session', async () => {
      const uri = 'db://notes/never-created';
      const response = await modern('resources/read', { uri });
      expect(response.status).toBe(200);
      expect(response.json.error).toEqual({
        code: -32602,
        message: expect.stringContaining('Resource not found'),
        data: { uri },
      });
      const id = ++ids;
      const legacy = await rawPost(endpoint, rpc(id, 'resources/read', { uri }), session);
      expect(legacy.json.error).toEqual({
        code: -32002,
        message: 'Resource not found',
        data: { uri, detail: expect.any(String) },
      });
      await expectServing();
    });

    it('legacy-only methods in the modern era → 404 -32601', async () => {
      for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'no/such/method']) {
        const id = ++ids;
        const response = await rawPost(
          endpoint,
          modernBody(id, method, { uri: 'system://info' }),
          modernHeaders(method),
        );
        expectError(response, 404, -32601, id);
      }
      await expectServing();
    });
  });

  describe('subscriptions/listen filters', () => {
    const listen = (notifications: unknown) =>
      modern('subscriptions/listen', notifications === undefined ? {} : { notifications });

    it.each<[string, unknown]>([
      ['no filter', undefined],
      ['a filter that is not an object', ['db://notes']],
      ['an empty filter', {}],
      ['a filter asking for nothing', { toolsListChanged: false, resourceSubscriptions: [] }],
      ['a non-boolean list flag', { toolsListChanged: 'yes' }],
      ['URIs that are not strings', { resourceSubscriptions: [1, 2] }],
      ['10,000 URIs', { resourceSubscriptions: Array.from({ length: 10_000 }, (_, i) => `db://notes/${i}`) }],
    ])('%s → -32602, no stream', async (_name, filter) => {
      const response = await listen(filter);
      expect(response.headers.get('content-type')).toContain('application/json');
      expectError(response, 200, -32602, ids);
      await expectServing();
    });

    it('unknown URIs only: acknowledged with an empty subset, and nothing is delivered for them', async () => {
      const id = ++ids;
      const params = { notifications: { resourceSubscriptions: ['db://notes/no-such-note', 'nope://x'] } };
      const stream = await openSse(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...modernHeaders('subscriptions/listen'),
        },
        body: JSON.stringify(modernBody(id, 'subscriptions/listen', params)),
      });
      try {
        expect(stream.status).toBe(200);
        const ack = await stream.waitForEvent((event) => event.data.includes('acknowledged'), 5_000);
        expect(JSON.parse(ack.data)).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { resourceSubscriptions: [] }, _meta: { [SUBSCRIPTION_ID_META]: id } },
        });
        // A resource that comes to exist later is not delivered either (no live matching).
        const report = await gateway.app
          .get(ResourceNotificationService)
          .notifyResourceUpdated('db://notes/no-such-note');
        expect(report).toEqual(expect.objectContaining({ listeners: 0 }));
        expect(stream.events).toHaveLength(1);
      } finally {
        stream.close();
      }
      await expectServing();
    });

    it('a listen that cannot stream (Accept: application/json only) → 406', async () => {
      const response = await modern(
        'subscriptions/listen',
        { notifications: { toolsListChanged: true } },
        { accept: 'application/json' },
      );
      expect(response.status).toBe(406);
      expect(response.json.id).toBe(ids);
      await expectServing();
    });
  });

  describe('MRTR requestState and inputResponses (notes.clear asks for { confirm })', () => {
    let noteId: string;

    beforeAll(async () => {
      const created = await callTool('notes.create', { title: 'guarded', body: 'keep me' });
      expect(created.status).toBe(200);
      noteId = created.json.result.structuredContent.id;
    });

    /** The first round of notes.clear: input_required with a requestState. */
    async function firstRound(): Promise<{ requestState: string; inputRequests: any }> {
      const response = await callTool('notes.clear');
      expect(response.status).toBe(200);
      expect(response.json.result).toEqual({
        resultType: 'input_required',
        inputRequests: { confirm: { method: 'elicitation/create', params: expect.any(Object) } },
        requestState: expect.any(String),
        _meta: expect.any(Object),
      });
      return response.json.result;
    }

    async function expectNoteKept(): Promise<void> {
      const read = await modern('resources/read', { uri: `db://notes/${noteId}` });
      expect(read.status).toBe(200);
      expect(JSON.parse(read.json.result.contents[0].text)).toMatchObject({ id: noteId });
    }

    const declined = { confirm: { action: 'decline' } };

    it.each<[string, (state: string) => unknown]>([
      ['a flipped signature character', (s) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1)],
      [
        'a body rewritten with the old signature',
        (s) => {
          const [v, body, sig] = s.split('.');
          const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
          payload.answers = { confirm: { action: 'accept', content: { confirm: true } } };
          return [v, Buffer.from(JSON.stringify(payload)).toString('base64url'), sig].join('.');
        },
      ],
      ['garbage', () => 'not-a-state'],
      ['a number', () => 42],
      ['an extra segment', (s) => `${s}.x`],
    ])('a tampered requestState (%s) → -32602, nothing deleted', async (_name, tamper) => {
      const { requestState } = await firstRound();
      const response = await callTool(
        'notes.clear',
        {},
        {
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
          requestState: tamper(requestState),
        },
      );
      const error = expectError(response, 200, -32602, ids);
      expect(JSON.stringify(error)).toContain('requestState');
      await expectNoteKept();
      await expectServing();
    });

    it('an expired requestState (genuinely signed) → -32602 "expired", nothing deleted', async () => {
      const codec = new RequestStateCodec([STATE_KEY]);
      const params = { name: 'notes.clear', arguments: {} };
      const expired = codec.seal({
        method: 'tools/call',
        digest: digestParams(params),
        expiresAt: Date.now() - 1,
        asked: ['confirm'],
        nonce: 'expired-state',
        answers: { confirm: { action: 'accept', content: { confirm: true } } },
        state: {},
      });
      const response = await callTool('notes.clear', {}, { requestState: expired });
      const error = expectError(response, 200, -32602, ids);
      expect(JSON.stringify(error)).toContain('expired');
      await expectNoteKept();
      // The same state, unexpired, would have been honoured: the expiry is what refused it.
      await expectServing();
    });

    it('a replayed requestState for another request (other tool, other arguments, other method) → -32602', async () => {
      const { requestState } = await firstRound();
      const replays: [string, Record<string, unknown>][] = [
        ['tools/call', { name: 'notes.delete', arguments: { id: noteId }, requestState }],
        ['tools/call', { name: 'notes.clear', arguments: { all: true }, requestState }],
        ['prompts/get', { name: 'summarize-note', arguments: { id: noteId }, requestState }],
        ['resources/read', { uri: `db://notes/${noteId}`, requestState }],
      ];
      for (const [method, params] of replays) {
        const response = await modern(method, params);
        const error = expectError(response, 200, -32602, ids);
        expect(JSON.stringify(error)).toContain('another request');
      }
      await expectNoteKept();
      await expectServing();
    });

    it('a replayed requestState for the same request → -32602 "already used": a state is accepted once', async () => {
      const { requestState } = await firstRound();
      const response = await callTool('notes.clear', {}, { inputResponses: declined, requestState });
      expect(response.status).toBe(200);
      expect(response.json.result.resultType).toBe('complete');
      expect(JSON.parse(response.json.result.content[0].text)).toEqual({ deleted: 0, confirmed: false });
      const accepted = { confirm: { action: 'accept', content: { confirm: true } } };
      const replay = await callTool('notes.clear', {}, { inputResponses: accepted, requestState });
      const error = expectError(replay, 200, -32602, ids);
      expect(JSON.stringify(error)).toContain('already used');
      await expectNoteKept();
      await expectServing();
    });

    it('inputResponses for keys never asked are ignored: the question is asked again', async () => {
      const bogus = { bogus: { action: 'accept', content: { confirm: true } }, 'elicitation-1': { action: 'accept' } };
      const unasked = await callTool('notes.clear', {}, { inputResponses: bogus });
      expect(unasked.json.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: {} } });
      const { requestState } = await firstRound();
      const retried = await callTool('notes.clear', {}, { inputResponses: bogus, requestState });
      expect(retried.status).toBe(200);
      expect(retried.json.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: {} } });
      // The unasked answers are not carried forward in the new state.
      const [, body] = (retried.json.result.requestState as string).split('.');
      expect(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')).answers).toEqual({});
      await expectNoteKept();
      await expectServing();
    });

    it.each<[string, unknown]>([
      ['inputResponses an array', [{ action: 'accept' }]],
      ['inputResponses a string', 'yes'],
      ['an answer that is not an elicitation result', { confirm: { action: 'maybe' } }],
      ['an answer that is not an object', { confirm: true }],
    ])('%s → -32602, nothing deleted', async (_name, inputResponses) => {
      const { requestState } = await firstRound();
      const response = await callTool('notes.clear', {}, { inputResponses, requestState });
      expectError(response, 200, -32602, ids);
      await expectNoteKept();
      await expectServing();
    });

    it('input_required is never sent for methods without MRTR, and the answer stream is plain JSON', async () => {
      const { requestState } = await firstRound();
      const listed = await modern('tools/list', { requestState, inputResponses: declined });
      expect(listed.status).toBe(200);
      expect(listed.json.result.resultType).toBe('complete');
      const sse = await rawPost(endpoint, modernBody(++ids, 'tools/list'), {
        ...modernHeaders('tools/list'),
        accept: 'text/event-stream',
      });
      expect(parseSse(sse.text).map((event) => JSON.parse(event.data).result.resultType)).toEqual(['complete']);
    });
  });

  it('after everything: both eras still serve, the listen and session machinery included', async () => {
    const id = ++ids;
    const stream = await openSse(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...modernHeaders('subscriptions/listen'),
      },
      body: JSON.stringify(
        modernBody(id, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['db://notes'] } }),
      ),
    });
    try {
      await stream.waitForEvent((event) => event.data.includes('acknowledged'), 5_000);
      const created = await callTool('notes.create', { title: 'final', body: 'x' });
      expect(created.status).toBe(200);
      const update = await within(
        stream.waitForEvent((event) => event.data.includes('notifications/resources/updated'), 5_000),
        6_000,
        'the listen got no update',
      );
      expect(JSON.parse(update.data).params).toEqual({ uri: 'db://notes', _meta: { [SUBSCRIPTION_ID_META]: id } });
    } finally {
      stream.close();
    }
    await expectServing();
  });
});

describe('gateways serving one era (MCP_PROTOCOL_ERAS): what the other era gets', () => {
  it("'modern': initialize → 400 -32022 naming only 2026-07-28 (with or without the modern header); GET and DELETE → 405", async () => {
    const gateway = await startGateway({ MCP_PROTOCOL_ERAS: 'modern' });
    try {
      for (const headers of [{}, { 'mcp-protocol-version': MODERN }] as Record<string, string>[]) {
        const response = await rawPost(gateway.endpoint, initializeRequest(7), headers);
        const error = expectError(response, 400, -32022, 7);
        expect(error.data).toEqual(expect.objectContaining({ supported: [MODERN] }));
        expect(response.headers.get('mcp-session-id')).toBeNull();
      }
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(gateway.endpoint, { method, headers: { accept: 'text/event-stream' } });
        await response.arrayBuffer();
        expect({ method, status: response.status }).toEqual({ method, status: 405 });
      }
      const discovered = await rawPost(
        gateway.endpoint,
        modernBody(8, 'server/discover'),
        modernHeaders('server/discover'),
      );
      expect(discovered.status).toBe(200);
      expect(discovered.json.result.supportedVersions).toEqual([MODERN]);
    } finally {
      await gateway.close();
    }
  });

  it("'legacy': a modern probe → 400 -32000 (not a modern error, so dual-era clients fall back); initialize works", async () => {
    const gateway = await startGateway({ MCP_PROTOCOL_ERAS: 'legacy' });
    try {
      for (const method of ['server/discover', 'tools/list']) {
        const response = await rawPost(gateway.endpoint, modernBody(9, method), modernHeaders(method));
        expectError(response, 400, -32000, 9);
      }
      const { sessionId } = await openSession(gateway.endpoint);
      expect(sessionId).toEqual(expect.any(String));
    } finally {
      await gateway.close();
    }
  });
});
