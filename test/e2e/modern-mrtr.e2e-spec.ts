/**
 * The modern era's multi round-trip requests (MCP 2026-07-28 MRTR) and request checks over raw
 * HTTP, as the conformance suite's input-required-result-*, server-stateless and
 * http-custom-header-server-validation scenarios exercise them: handlers written once with
 * `ctx.elicit` / `ctx.sample` / `ctx.listRoots` answer `input_required`, continue from
 * `inputResponses` and a signed `requestState`, refuse a tampered or foreign state with -32602,
 * answer -32021 (HTTP 400) for an undeclared client capability, log only with a `_meta` logLevel,
 * and check `Mcp-Param-*` headers (Base64 sentinel included) against the arguments. And the
 * state's security: answers count only under a verified state that asked for them, a state is
 * accepted once, a forged state is refused before the request is walked, and a state too large
 * to come back is never sent.
 */
import { jest } from '@jest/globals';
import { Injectable, Logger } from '@nestjs/common';
import { McpArgs, McpCtx, McpPrompt, McpTool, type McpRequestContext } from '@app/mcp';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { parseSse, rawPost, type RawResponse } from '../support/raw-http.js';

const nameSchema = (property: string) => ({
  type: 'object' as const,
  properties: { [property]: { type: 'string' as const } },
  required: [property],
});

@Injectable()
class RoundTools {
  @McpTool({ name: 'greet', description: 'Asks the user for a name' })
  async greet(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: nameSchema('name') }, { key: 'user_name' });
    return `Hello, ${answer.content?.name as string}!`;
  }

  @McpTool({ name: 'two_steps', description: 'Asks twice, one round each, and keeps state' })
  async twoSteps(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    ctx.roundState.set('rounds', (ctx.roundState.get<number>('rounds') ?? 0) + 1);
    const name = await ctx.elicit({ message: 'Name?', requestedSchema: nameSchema('name') });
    const color = await ctx.elicit({ message: 'Color?', requestedSchema: nameSchema('color') });
    return `${name.content?.name as string} likes ${color.content?.color as string} after ${ctx.roundState.get<number>('rounds')} rounds`;
  }

  @McpTool({ name: 'all_at_once', description: 'Asks three things in one round' })
  async allAtOnce(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    const [name, , roots] = await Promise.all([
      ctx.elicit({ message: 'Name?', requestedSchema: nameSchema('name') }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 }),
      ctx.listRoots(),
    ]);
    return `${name.content?.name as string} with ${roots.roots.length} roots`;
  }

  @McpTool({ name: 'needs_sampling', description: 'Asks the client model' })
  async needsSampling(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 });
    return 'sampled';
  }

  @McpTool({ name: 'chatty', description: 'Logs twice' })
  async chatty(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    await ctx.log('debug', 'debug line');
    await ctx.log('warning', 'warning line');
    return 'logged';
  }

  @McpTool({ name: 'hoarder', description: 'Keeps more round state than a client may send back, then asks' })
  async hoarder(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    ctx.roundState.set('blob', 'x'.repeat(300 * 1024));
    await ctx.elicit({ message: 'Name?', requestedSchema: nameSchema('name') });
    return 'never';
  }

  @McpTool({
    name: 'echo_header',
    description: 'Takes an argument mirrored into Mcp-Param-Value',
    input: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
    headerParams: { value: 'Value' },
  })
  echoHeader(@McpArgs('value') value: string) {
    return `value=${value}`;
  }
}

@Injectable()
class RoundPrompts {
  @McpPrompt({ name: 'contextual', description: 'Needs context from the user' })
  async contextual(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.elicit({ message: 'Context?', requestedSchema: nameSchema('context') });
    return [{ role: 'user', content: { type: 'text', text: `context: ${answer.content?.context as string}` } }];
  }

  @McpPrompt({ name: 'hoarding', description: 'Keeps more round state than a client may send back, then asks' })
  async hoarding(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    ctx.roundState.set('blob', 'x'.repeat(300 * 1024));
    await ctx.elicit({ message: 'Context?', requestedSchema: nameSchema('context') });
    return [];
  }
}

const ALL_CAPABILITIES = { sampling: {}, elicitation: {}, roots: {} };

describe('Modern era (2026-07-28): multi round-trip requests and request checks', () => {
  let app: FixtureApp;
  let nextId = 1;

  beforeAll(async () => {
    app = await startFixtureApp({
      providers: [RoundTools, RoundPrompts],
      mcp: { modern: { requestStateKeys: ['a-test-key-of-at-least-16-bytes'] } },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  /** One modern request: `_meta` in the body, the metadata headers beside it. */
  async function send(
    method: string,
    params: Record<string, unknown>,
    options: {
      capabilities?: Record<string, unknown>;
      meta?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ): Promise<RawResponse & { id: number }> {
    const id = nextId++;
    const name = method === 'resources/read' ? params.uri : params.name;
    const response = await rawPost(
      app.endpoint,
      {
        jsonrpc: '2.0',
        id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? ALL_CAPABILITIES,
            ...options.meta,
          },
        },
      },
      {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...options.headers,
      },
    );
    return { ...response, id };
  }

  /** The JSON-RPC messages of a response, whether JSON or an SSE stream. */
  const messagesOf = (response: RawResponse): any[] =>
    response.json !== undefined ? [response.json] : parseSse(response.text).map((event) => JSON.parse(event.data));
  const finalOf = (response: RawResponse & { id: number }): any =>
    messagesOf(response).find((message) => message.id === response.id);

  const call = (name: string, extra: Record<string, unknown> = {}, options?: Parameters<typeof send>[2]) =>
    send('tools/call', { name, arguments: {}, ...extra }, options);

  it('answers input_required with the keyed request and a requestState, then completes on the retry', async () => {
    const first = await call('greet');
    expect(first.status).toBe(200);
    const result = finalOf(first).result;
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create', params: { message: 'Name?' } } },
      requestState: expect.any(String),
    });

    const withState = await call('greet', {
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: result.requestState,
    });
    expect(finalOf(withState).result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Alice!' }],
    });

    // An answer under another key asks again.
    const wrongKey = await call('greet', { inputResponses: { wrong_key: { action: 'accept', content: {} } } });
    expect(finalOf(wrongKey).result.resultType).toBe('input_required');
  });

  describe('what a requestState authorizes', () => {
    const alice = { action: 'accept', content: { name: 'Alice' } };

    it('takes no answers without a requestState: the question is asked again, with a state', async () => {
      const stateless = finalOf(await call('greet', { inputResponses: { user_name: alice, extra: { foo: 1 } } }));
      expect(stateless.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { user_name: { method: 'elicitation/create' } },
        requestState: expect.any(String),
      });
    });

    it('takes only the answers to what the state asked: an answer given ahead of its question is ignored', async () => {
      const r1 = finalOf(await call('two_steps')).result;
      expect(Object.keys(r1.inputRequests)).toEqual(['elicitation-1']);
      const early = {
        'elicitation-1': alice,
        'elicitation-2': { action: 'accept', content: { color: 'red' } },
      };
      const r2 = finalOf(await call('two_steps', { inputResponses: early, requestState: r1.requestState })).result;
      expect(r2).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'elicitation-2': expect.any(Object) },
      });
    });

    it('accepts a state once: a replay of the same retry is refused with -32602 and runs nothing', async () => {
      const first = finalOf(await call('greet')).result;
      const retry = { inputResponses: { user_name: alice }, requestState: first.requestState };
      expect(finalOf(await call('greet', retry)).result.content[0].text).toBe('Hello, Alice!');

      const replay = await call('greet', retry);
      expect(replay.status).toBe(200);
      expect(finalOf(replay)).toMatchObject({ id: replay.id, error: { code: -32602 } });
      expect(finalOf(replay).error.data.detail).toContain('already used');
      expect(finalOf(replay).result).toBeUndefined();
    });

    it("accepts each round's state once, and carries answers across rounds with new states", async () => {
      const r1 = finalOf(await call('two_steps')).result;
      const r2 = finalOf(
        await call('two_steps', { inputResponses: { 'elicitation-1': alice }, requestState: r1.requestState }),
      ).result;
      const again = await call('two_steps', {
        inputResponses: { 'elicitation-1': alice },
        requestState: r1.requestState,
      });
      expect(finalOf(again).error).toMatchObject({ code: -32602 });
      const r3 = finalOf(
        await call('two_steps', {
          inputResponses: { 'elicitation-2': { action: 'accept', content: { color: 'blue' } } },
          requestState: r2.requestState,
        }),
      ).result;
      expect(r3.content[0].text).toBe('Alice likes blue after 3 rounds');
    });
  });

  describe('a request nested 200,000 levels deep', () => {
    const DEPTH = 200_000;
    /** A tools/call body with a parameter of DEPTH nested arrays (JSON.stringify itself would overflow on it). */
    const deepBody = (id: number, extra: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"greet","arguments":{},` +
      `"deep":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)},${extra}"_meta":{` +
      `"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
      `"io.modelcontextprotocol/clientCapabilities":${JSON.stringify(ALL_CAPABILITIES)}}}}`;
    const post = (body: string) =>
      rawPost(app.endpoint, body, {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'greet',
      });

    let errors: ReturnType<typeof jest.spyOn>;
    beforeEach(() => {
      errors = jest.spyOn(Logger.prototype, 'error');
    });
    afterEach(() => {
      errors.mockRestore();
    });

    it('with a forged requestState: -32602 for the state, and no error logged', async () => {
      const id = nextId++;
      const response = await post(deepBody(id, '"requestState":"v1.x.y",'));
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ id, error: { code: -32602 } });
      expect(response.json.error.data.detail).toContain('requestState');
      expect(errors).not.toHaveBeenCalled();
    });

    it('with a genuine requestState: -32602 for the depth, and no error logged', async () => {
      const first = finalOf(await call('greet')).result;
      const id = nextId++;
      const response = await post(deepBody(id, `"requestState":${JSON.stringify(first.requestState)},`));
      expect(response.json).toMatchObject({ id, error: { code: -32602 } });
      expect(response.json.error.data.detail).toContain('nested deeper than');
      expect(errors).not.toHaveBeenCalled();
    });

    it('without a requestState, when the handler asks: -32602 for the depth, and no error logged', async () => {
      const id = nextId++;
      const response = await post(deepBody(id, ''));
      expect(response.json).toMatchObject({ id, error: { code: -32602 } });
      expect(response.json.error.data.detail).toContain('nested deeper than');
      expect(errors).not.toHaveBeenCalled();
    });
  });

  describe('a round whose state is larger than a client may send back', () => {
    it('fails the tool call there, with an isError result that names the cause', async () => {
      const response = finalOf(await call('hoarder'));
      expect(response.result).toMatchObject({ resultType: 'complete', isError: true });
      expect(response.result.requestState).toBeUndefined();
      expect(response.result.content[0].text).toMatch(/requestState .* over the 262144 a client may send back/);
    });

    it('fails prompts/get with -32603 that names the cause', async () => {
      const response = finalOf(await send('prompts/get', { name: 'hoarding' }));
      expect(response.error).toMatchObject({ code: -32603 });
      expect(response.error.data.detail).toMatch(/requestState .* over the 262144 a client may send back/);
    });
  });

  it('refuses a tampered requestState, or one issued for other arguments, with -32602', async () => {
    const first = finalOf(await call('greet')).result;
    const inputResponses = { user_name: { action: 'accept', content: { name: 'Alice' } } };

    const tampered = await call('greet', { inputResponses, requestState: `${first.requestState}-TAMPERED` });
    expect(finalOf(tampered)).toMatchObject({ id: tampered.id, error: { code: -32602 } });
    expect(finalOf(tampered).result).toBeUndefined();

    const otherArgs = await call('greet', { arguments: { x: 1 }, inputResponses, requestState: first.requestState });
    expect(finalOf(otherArgs)).toMatchObject({ error: { code: -32602 } });
  });

  it('refuses answers that are not results of the asked method, and inputResponses that is not an object', async () => {
    const { requestState } = finalOf(await call('greet')).result;
    const notAResult = await call('greet', { inputResponses: { user_name: 12345 }, requestState });
    expect(finalOf(notAResult)).toMatchObject({ error: { code: -32602 } });
    const nullResponses = await call('greet', { inputResponses: null });
    expect(finalOf(nullResponses)).toMatchObject({ error: { code: -32602 } });
  });

  it('carries answers and roundState across rounds, with a new requestState each round', async () => {
    const r1 = finalOf(await call('two_steps')).result;
    expect(r1).toMatchObject({ resultType: 'input_required', inputRequests: { 'elicitation-1': expect.any(Object) } });

    const r2 = finalOf(
      await call('two_steps', {
        inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Alice' } } },
        requestState: r1.requestState,
      }),
    ).result;
    expect(r2.resultType).toBe('input_required');
    expect(Object.keys(r2.inputRequests)).toEqual(['elicitation-2']);
    expect(r2.inputRequests['elicitation-2'].params.message).toBe('Color?');
    expect(r2.requestState).not.toBe(r1.requestState);

    const r3 = finalOf(
      await call('two_steps', {
        inputResponses: { 'elicitation-2': { action: 'accept', content: { color: 'blue' } } },
        requestState: r2.requestState,
      }),
    ).result;
    expect(r3).toMatchObject({ resultType: 'complete', content: [{ text: 'Alice likes blue after 3 rounds' }] });
  });

  it('asks for everything a round needs at once', async () => {
    const first = finalOf(await call('all_at_once')).result;
    const methods = Object.values(first.inputRequests as Record<string, { method: string }>).map((r) => r.method);
    expect(methods.sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    const keys = Object.keys(first.inputRequests as object);
    const answers: Record<string, unknown> = {};
    for (const key of keys) {
      const method = first.inputRequests[key].method as string;
      answers[key] =
        method === 'elicitation/create'
          ? { action: 'accept', content: { name: 'Alice' } }
          : method === 'roots/list'
            ? { roots: [{ uri: 'file:///a' }] }
            : { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm' };
    }
    const done = finalOf(await call('all_at_once', { inputResponses: answers, requestState: first.requestState }));
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Alice with 1 roots' }] });
  });

  it('answers input_required for prompts/get as well, and a complete GetPromptResult after', async () => {
    const first = finalOf(await send('prompts/get', { name: 'contextual' })).result;
    expect(first.resultType).toBe('input_required');
    const [key] = Object.keys(first.inputRequests as object);
    const done = finalOf(
      await send('prompts/get', {
        name: 'contextual',
        inputResponses: { [key]: { action: 'accept', content: { context: 'ctx' } } },
        requestState: first.requestState,
      }),
    ).result;
    expect(done).toMatchObject({ resultType: 'complete', messages: [{ content: { text: 'context: ctx' } }] });
  });

  it('answers -32021 with HTTP 400 and requiredCapabilities when the client did not declare the capability', async () => {
    const response = await call('needs_sampling', {}, { capabilities: { elicitation: {} } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      id: response.id,
      error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it('sends no log message without a _meta logLevel, and the ones at or above it with one', async () => {
    const silent = await call('chatty');
    expect(messagesOf(silent).filter((message) => message.method === 'notifications/message')).toEqual([]);
    expect(finalOf(silent).result.content[0].text).toBe('logged');

    const verbose = await call('chatty', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    const logs = messagesOf(verbose).filter((message) => message.method === 'notifications/message');
    expect(logs.map((message) => message.params)).toEqual([{ level: 'warning', data: 'warning line' }]);
    expect(messagesOf(verbose).every((message) => message.method === undefined || message.id === undefined)).toBe(true);
  });

  describe('Mcp-Param-* headers (x-mcp-header)', () => {
    const echo = (value: string, header?: string) =>
      call(
        'echo_header',
        { arguments: { value } },
        { headers: header === undefined ? {} : { 'mcp-param-value': header } },
      );

    it('lists the annotation on the tool', async () => {
      const list = finalOf(await send('tools/list', {})).result;
      const tool = list.tools.find((candidate: { name: string }) => candidate.name === 'echo_header');
      expect(tool.inputSchema.properties.value['x-mcp-header']).toBe('Value');
    });

    it.each([
      ['a literal value', 'Hello', 'Hello'],
      ['the Base64 sentinel form', 'Hello', '=?base64?SGVsbG8=?='],
      ['Base64-looking text without the wrapper (a literal)', 'SGVsbG8=', 'SGVsbG8='],
      ['a value opening like the sentinel without its ?= end (a literal)', '=?base64?SGVsbG8=', '=?base64?SGVsbG8='],
    ])('accepts %s', async (_what, value, header) => {
      const response = await echo(value, header);
      expect(response.status).toBe(200);
      expect(finalOf(response).result.content[0].text).toBe(`value=${value}`);
    });

    it.each([
      ['bad Base64 padding', '=?base64?SGVsbG8?='],
      ['characters outside the Base64 alphabet', '=?base64?SGVs!!!bG8=?='],
      ['a different value', 'Bye'],
      ['no header at all', undefined],
    ])('refuses %s with HTTP 400 and -32020', async (_what, header) => {
      const response = await echo('Hello', header);
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ id: response.id, error: { code: -32020 } });
    });
  });
});
