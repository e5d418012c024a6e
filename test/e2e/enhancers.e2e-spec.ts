/**
 * Guards, interceptors, pipes, exception filters, param decorators and request scope on MCP
 * handlers, over real Streamable HTTP (official SDK client, or raw POSTs for exact wire checks
 * and for 2025-06-18 sessions).
 */
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { ValidationPipe } from '@nestjs/common';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { startFixtureApp, toolJson, toolText, type ConnectedClient, type FixtureApp } from '../fixtures/fixture-app.js';
import { FixtureState } from '../fixtures/fixture-state.js';
import { ClassDeniedTools, ClassInspectedTools, GuardedTools } from '../fixtures/guarded.tools.js';
import { BLOCK_HEADER, DENY_META_KEY, GlobalRecordingGuard, HttpOnlyGuard } from '../fixtures/test.guard.js';
import { InterceptedTools } from '../fixtures/intercepted.tools.js';
import { AppGlobalInterceptor, GlobalRecordingInterceptor } from '../fixtures/test.interceptor.js';
import { GloballyPipedTools, PipedTools } from '../fixtures/piped.tools.js';
import { FilteredTools } from '../fixtures/filtered.tools.js';
import { ParamsTools } from '../fixtures/params.tools.js';
import { RecordingPipe } from '../fixtures/test.pipe.js';
import { ImplicitlyScopedTools, RequestInfo, RequestScopedTools } from '../fixtures/request-scoped.tools.js';
import { E2E_HTTP_PLATFORM } from '../support/http-platform.js';

/** Resolves to the McpError a promise rejects with (fails the test when it resolves). */
async function mcpErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  if ('resolved' in outcome) throw new Error(`Expected an MCP error, got ${JSON.stringify(outcome.resolved)}`);
  expect(outcome.rejected).toBeInstanceOf(McpError);
  return outcome.rejected as McpError;
}

let nextId = 100;

/** `tools/call` over a raw POST; resolves to the JSON-RPC response. */
async function rawCallTool(endpoint: string, headers: Record<string, string>, name: string, args?: object) {
  const response = await rawPost(
    endpoint,
    { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args ?? {} } },
    headers,
  );
  expect(response.status).toBe(200);
  return response.json;
}

describe('MCP enhancers over Streamable HTTP', () => {
  describe('guards (method and class level)', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({
        providers: [FixtureState, GuardedTools, ClassDeniedTools, ClassInspectedTools],
      });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('gives the guard the MCP view of the context: type, arguments and session', async () => {
      const result = await mcp.client.callTool({ name: 'inspected', arguments: { note: 'hello' } });

      expect(result.isError).toBeFalsy();
      expect(toolJson(result)).toEqual({ runs: 1, args: { note: 'hello' } });
      const seen = state.observedBy('InspectingGuard').filter((o) => o.handler === 'inspected');
      expect(seen).toEqual([
        {
          by: 'InspectingGuard',
          type: 'mcp',
          isMcp: true,
          handler: 'inspected',
          args: { note: 'hello' },
          sessionId: mcp.sessionId,
          method: 'tools/call',
        },
      ]);
    });

    it('answers -32003 Forbidden when a guard returns false, without running the tool', async () => {
      const { headers } = await openSession(fixture.endpoint);

      const answer = await rawCallTool(fixture.endpoint, headers, 'denied', { note: 'x' });

      expect(answer.result).toBeUndefined();
      expect(answer.error).toMatchObject({ code: -32003, message: 'Forbidden' });
      expect(state.observedBy('DenyGuard').some((o) => o.handler === 'denied' && o.type === 'mcp')).toBe(true);
      expect(state.count('denied')).toBe(0);

      const viaSdk = await mcpErrorOf(mcp.client.callTool({ name: 'denied', arguments: {} }));
      expect(viaSdk.code).toBe(-32003);
      expect(state.count('denied')).toBe(0);
    });

    it('answers -32005 when a guard throws UnauthorizedException, without running the tool', async () => {
      const error = await mcpErrorOf(mcp.client.callTool({ name: 'unauthorized', arguments: {} }));

      expect(error.code).toBe(-32005);
      expect(error.message).toContain('Unauthorized');
      expect(state.count('unauthorized')).toBe(0);
    });

    it('guards resource reads and prompt gets the same way', async () => {
      const read = await mcpErrorOf(mcp.client.readResource({ uri: 'fixture://guarded/secret' }));
      const get = await mcpErrorOf(mcp.client.getPrompt({ name: 'guarded-prompt' }));

      expect(read.code).toBe(-32003);
      expect(get.code).toBe(-32003);
      expect(state.count('secret')).toBe(0);
      expect(state.count('guarded-prompt')).toBe(0);
      const denied = state.observedBy('DenyGuard').map((o) => o.handler);
      expect(denied).toEqual(expect.arrayContaining(['secret', 'guardedPrompt']));
    });

    it('applies a class-level guard that says no to every tool of the class', async () => {
      for (const name of ['class-denied-a', 'class-denied-b']) {
        const error = await mcpErrorOf(mcp.client.callTool({ name, arguments: {} }));
        expect(error.code).toBe(-32003);
        expect(state.count(name)).toBe(0);
      }
      const handlers = state.observedBy('DenyGuard').map((o) => o.handler);
      expect(handlers).toEqual(expect.arrayContaining(['first', 'second']));
    });

    it('runs a class-level guard that allows for every tool of the class', async () => {
      for (const name of ['class-inspected-a', 'class-inspected-b']) {
        const result = await mcp.client.callTool({ name, arguments: {} });
        expect(toolJson(result)).toEqual({ runs: 1 });
      }
      const seen = state
        .observedBy('InspectingGuard')
        .filter((o) => o.handler === 'alpha' || o.handler === 'beta')
        .map((o) => [o.handler, o.type, o.sessionId]);
      expect(seen).toEqual([
        ['alpha', 'mcp', mcp.sessionId],
        ['beta', 'mcp', mcp.sessionId],
      ]);
    });
  });

  describe('global guards (APP_GUARD)', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({
        providers: [
          FixtureState,
          GuardedTools,
          { provide: APP_GUARD, useClass: GlobalRecordingGuard },
          { provide: APP_GUARD, useClass: HttpOnlyGuard },
        ],
      });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('runs a global guard for MCP handlers, with the MCP context', async () => {
      const result = await mcp.client.callTool({ name: 'open', arguments: {} });

      expect(toolJson(result)).toEqual({ runs: 1 });
      const mcpRuns = state.observedBy('GlobalRecordingGuard').filter((o) => o.type === 'mcp');
      expect(mcpRuns).toContainEqual(
        expect.objectContaining({ isMcp: true, handler: 'open', method: 'tools/call', sessionId: mcp.sessionId }),
      );
      // It also guards the HTTP endpoint itself, as an ordinary route.
      expect(state.observedBy('GlobalRecordingGuard').some((o) => o.type === 'http' && !o.isMcp)).toBe(true);
    });

    it('lets a global guard refuse an MCP request (-32003, body not run)', async () => {
      const before = state.count('open');

      const error = await mcpErrorOf(
        mcp.client.callTool({ name: 'open', arguments: {}, _meta: { [DENY_META_KEY]: true } }),
      );

      expect(error.code).toBe(-32003);
      expect(state.count('open')).toBe(before);
    });

    it('runs global guards before method guards on MCP handlers', async () => {
      const error = await mcpErrorOf(mcp.client.callTool({ name: 'denied', arguments: {} }));

      expect(error.code).toBe(-32003);
      const order = state.observations.filter((o) => o.handler === 'denied' && o.type === 'mcp').map((o) => o.by);
      expect(order).toEqual(['GlobalRecordingGuard', 'DenyGuard']);
    });

    it('keeps MCP working next to a global HTTP-only guard that branches on isMcpContext', async () => {
      const result = await mcp.client.callTool({ name: 'inspected', arguments: { note: 'n' } });
      expect(toolJson(result)).toEqual({ runs: 1, args: { note: 'n' } });

      // The same guard still protects plain HTTP: the endpoint itself is refused when asked to.
      const blocked = await rawPost(
        fixture.endpoint,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { 'mcp-session-id': mcp.sessionId, 'mcp-protocol-version': '2025-11-25', [BLOCK_HEADER]: 'yes' },
      );
      expect(blocked.status).toBe(403);
    });
  });

  describe('interceptors', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({
        providers: [FixtureState, InterceptedTools, { provide: APP_INTERCEPTOR, useClass: AppGlobalInterceptor }],
        configure: (app) =>
          app.useGlobalInterceptors(new GlobalRecordingInterceptor(app.get(FixtureState), 'useGlobalInterceptors')),
      });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('sends the client the result as mapped by a method interceptor', async () => {
      const result = await mcp.client.callTool({ name: 'stamped', arguments: { value: 41 } });

      expect(result.isError).toBeFalsy();
      expect(toolJson(result)).toEqual({ value: 41, stamped: true });
      expect(state.count('stamped')).toBe(1);
    });

    it('runs a recording interceptor around a resource read', async () => {
      const read = await mcp.client.readResource({ uri: 'fixture://intercepted/clock' });

      expect(read.contents).toEqual([{ uri: 'fixture://intercepted/clock', mimeType: 'text/plain', text: 'tick' }]);
      const around = state.observedBy('RecordingInterceptor').filter((o) => o.method === 'resources/read');
      expect(around.map((o) => o.phase)).toEqual(['before', 'after']);
      expect(around[0]).toMatchObject({
        type: 'mcp',
        isMcp: true,
        handler: 'clock',
        args: { uri: 'fixture://intercepted/clock' },
      });
      expect(around[1].result).toBe('tick');
      expect(around[1].durationMs).toBeGreaterThanOrEqual(0);
    });

    it('runs a recording interceptor around a prompt get', async () => {
      const prompt = await mcp.client.getPrompt({ name: 'recorded-prompt', arguments: { topic: 'owls' } });

      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Tell me about owls' } }]);
      const around = state.observedBy('RecordingInterceptor').filter((o) => o.method === 'prompts/get');
      expect(around.map((o) => o.phase)).toEqual(['before', 'after']);
      expect(around[0]).toMatchObject({ type: 'mcp', handler: 'recordedPrompt', args: { topic: 'owls' } });
      expect(around[1].result).toBe('Tell me about owls');
    });

    it('lets global interceptors (APP_INTERCEPTOR and useGlobalInterceptors) reach MCP handlers', async () => {
      const result = await mcp.client.callTool({ name: 'plain', arguments: {} });

      expect(toolJson(result)).toEqual({ plain: true });
      for (const by of ['APP_INTERCEPTOR', 'useGlobalInterceptors']) {
        expect(state.observedBy(by)).toContainEqual(
          expect.objectContaining({ type: 'mcp', isMcp: true, handler: 'plain', method: 'tools/call' }),
        );
      }
    });
  });

  describe('pipes on the method and on a parameter', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;
    let legacy: Record<string, string>;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [FixtureState, PipedTools] });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
      legacy = (await openSession(fixture.endpoint, '2025-06-18')).headers;
    });
    afterAll(() => fixture?.close());

    it('hands @McpArgs() a DTO instance through @UsePipes(new ValidationPipe({ transform: true }))', async () => {
      const result = await mcp.client.callTool({ name: 'validated-greet', arguments: { name: 'Ada' } });

      expect(result.isError).toBeFalsy();
      expect(toolJson(result)).toEqual({ isInstance: true, greeting: 'Hello, Ada!' });
    });

    it('turns a ValidationPipe rejection into an isError result on 2025-11-25', async () => {
      const before = state.count('validated-greet');

      const result = await mcp.client.callTool({ name: 'validated-greet', arguments: { name: 'Al' } });

      expect(result.isError).toBe(true);
      expect(toolText(result)).toContain("Invalid arguments for tool 'validated-greet'");
      expect(toolText(result)).toContain('name must be longer than or equal to 3 characters');
      expect(state.count('validated-greet')).toBe(before);
    });

    it('turns a ValidationPipe rejection into -32602 on 2025-06-18', async () => {
      const before = state.count('validated-greet');

      const answer = await rawCallTool(fixture.endpoint, legacy, 'validated-greet', { name: 'Al' });

      expect(answer.result).toBeUndefined();
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.data.detail).toContain('name must be longer than or equal to 3 characters');
      expect(state.count('validated-greet')).toBe(before);
    });

    it('validates with a plain @UsePipes(new ValidationPipe())', async () => {
      const ok = await mcp.client.callTool({ name: 'checked-greet', arguments: { name: 'Grace' } });
      expect(toolJson(ok)).toEqual({ name: 'Grace' });

      const refused = await mcp.client.callTool({ name: 'checked-greet', arguments: { name: 'G' } });
      expect(refused.isError).toBe(true);
      expect(toolText(refused)).toContain('name must be longer than or equal to 3 characters');
      expect(state.count('checked-greet')).toBe(1);
    });

    it("transforms one property with @McpArgs('count', ParseIntPipe)", async () => {
      const result = await mcp.client.callTool({ name: 'repeat', arguments: { count: '42' } });

      expect(toolJson(result)).toEqual({ count: 42, type: 'number' });
    });

    it('maps a property pipe BadRequestException to isError (2025-11-25) and -32602 (2025-06-18)', async () => {
      const before = state.count('repeat');

      const result = await mcp.client.callTool({ name: 'repeat', arguments: { count: 'many' } });
      expect(result.isError).toBe(true);
      expect(toolText(result)).toContain('numeric string is expected');

      const answer = await rawCallTool(fixture.endpoint, legacy, 'repeat', { count: 'many' });
      expect(answer.error).toMatchObject({ code: -32602, message: 'Invalid params' });
      expect(answer.error.data.detail).toContain('numeric string is expected');

      expect(state.count('repeat')).toBe(before);
    });
  });

  describe('a global ValidationPipe', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({
        providers: [FixtureState, GloballyPipedTools],
        configure: (app) => app.useGlobalPipes(new ValidationPipe({ transform: true })),
      });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('validates and transforms @McpArgs() into a DTO instance', async () => {
      const result = await mcp.client.callTool({ name: 'global-greet', arguments: { name: 'Linus' } });

      expect(toolJson(result)).toEqual({ isInstance: true, greeting: 'Hello, Linus!' });
    });

    it('refuses invalid arguments before the tool runs', async () => {
      const before = state.count('global-greet');

      const result = await mcp.client.callTool({ name: 'global-greet', arguments: { name: 'L' } });

      expect(result.isError).toBe(true);
      expect(toolText(result)).toContain('name must be longer than or equal to 3 characters');
      expect(state.count('global-greet')).toBe(before);
    });
  });

  describe('exception filters', () => {
    let fixture: FixtureApp;
    let state: FixtureState;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [FixtureState, FilteredTools] });
      state = fixture.app.get(FixtureState);
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it("answers a resource read with the filter's McpInvalidParamsException (-32602 and its detail)", async () => {
      const { headers } = await openSession(fixture.endpoint);

      const response = await rawPost(
        fixture.endpoint,
        { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'fixture://filtered/missing' } },
        headers,
      );

      expect(response.status).toBe(200);
      expect(response.json).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32602,
          message: 'Invalid params',
          data: { entity: 'row', detail: 'Filtered in resources/read: no row here' },
        },
      });
      expect(state.count('missing')).toBe(1);
    });

    it('keeps the default mapping for an exception the filter does not catch (-32603, text hidden)', async () => {
      const error = await mcpErrorOf(mcp.client.readResource({ uri: 'fixture://filtered/crash' }));

      expect(error.code).toBe(-32603);
      expect(JSON.stringify(error.data)).not.toContain('secret internals');
      expect(error.message).not.toContain('secret internals');
      expect(state.count('crash')).toBe(1);
    });

    it("sends the value a filter returns as the tool's result", async () => {
      const result = await mcp.client.callTool({ name: 'recovering', arguments: { id: '7' } });

      expect(result.isError).toBeFalsy();
      expect(toolJson(result)).toEqual({ recovered: 'No item 7', isMcp: true, args: { id: '7' } });
    });

    it('answers a tool call with the McpException a filter throws', async () => {
      const error = await mcpErrorOf(mcp.client.callTool({ name: 'translated', arguments: {} }));

      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ entity: 'account', detail: 'Filtered in tools/call: no account here' });
    });

    it('keeps the default tool mapping (isError result) for an exception the filter does not catch', async () => {
      const result = await mcp.client.callTool({ name: 'unmatched', arguments: {} });

      expect(result.isError).toBe(true);
      expect(toolText(result)).toBe('plain failure');
    });
  });

  describe('param decorators', () => {
    let fixture: FixtureApp;
    const pipe = new RecordingPipe();

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [ParamsTools], configure: (app) => app.useGlobalPipes(pipe) });
    });
    afterAll(() => fixture?.close());

    it('injects the context, session, version, transport, request, signal and user decorators', async () => {
      const mcp = await fixture.connect();

      const result = await mcp.client.callTool({ name: 'inspect-params', arguments: { tag: 't1' } });

      expect(result.isError).toBeFalsy();
      expect(toolJson(result)).toEqual({
        tag: 't1',
        ctx: {
          method: 'tools/call',
          sessionId: mcp.sessionId,
          protocolVersion: '2025-11-25',
          transport: 'streamable-http',
          sameRequest: true,
          hasSendNotification: true,
        },
        sessionId: mcp.sessionId,
        protocolVersion: '2025-11-25',
        transport: 'streamable-http',
        request: { hasHeaders: true, sessionHeader: mcp.sessionId, method: 'POST' },
        signal: { isAbortSignal: true, aborted: false },
        customSessionId: mcp.sessionId,
        contextType: 'mcp',
      });
    });

    it('injects the negotiated version of a 2025-06-18 session', async () => {
      const { sessionId, headers } = await openSession(fixture.endpoint, '2025-06-18');

      const answer = await rawCallTool(fixture.endpoint, headers, 'inspect-params');

      const report = JSON.parse(answer.result.content[0].text);
      expect(report.protocolVersion).toBe('2025-06-18');
      expect(report.ctx.protocolVersion).toBe('2025-06-18');
      expect(report.sessionId).toBe(sessionId);
      expect(report.customSessionId).toBe(sessionId);
      expect(report.tag).toBeUndefined();
    });

    it("shows pipes the arguments as 'body' and every context parameter as 'custom'", async () => {
      // As @Payload() and GraphQL @Args() do: a global ValidationPipe validates the arguments and
      // leaves the context alone (it would otherwise deep-transform a class-typed @McpRequest()).
      const mcp = await fixture.connect();
      pipe.calls.length = 0;

      await mcp.client.callTool({ name: 'inspect-params', arguments: { tag: 't2' } });

      expect(pipe.calls).toHaveLength(9);
      expect(pipe.calls.filter((call) => call.data === 'tag')).toEqual([
        { type: 'body', data: 'tag', metatype: 'Object' },
      ]);
      expect(pipe.calls.filter((call) => call.data !== 'tag').map((call) => call.type)).toEqual(
        Array(8).fill('custom'),
      );
    });
  });

  describe('request-scoped providers', () => {
    let fixture: FixtureApp;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [RequestScopedTools, RequestInfo, ImplicitlyScopedTools] });
    });
    afterAll(() => fixture?.close());

    // REQUEST is Node's request the transport framed: on Express that is Express's own request
    // (which extends it); on Fastify, `request.raw`.
    it('builds a fresh instance for every MCP request, with REQUEST = the HTTP request', async () => {
      const mcp = await fixture.connect();

      const first = toolJson(await mcp.client.callTool({ name: 'scoped-whoami', arguments: {} }));
      const second = toolJson(await mcp.client.callTool({ name: 'scoped-whoami', arguments: {} }));

      expect(second.constructed).toBe(first.constructed + 1);
      expect(second.instanceId).not.toBe(first.instanceId);
      for (const report of [first, second]) {
        expect(report.request).toEqual({
          hasHeaders: true,
          sessionHeader: mcp.sessionId,
          method: 'POST',
          isExpress: E2E_HTTP_PLATFORM === 'express',
        });
      }
    });

    it('serves a default-scoped provider that injects a request-scoped dependency', async () => {
      const mcp = await fixture.connect();

      const first = toolJson(await mcp.client.callTool({ name: 'implicit-whoami', arguments: {} }));
      const second = toolJson(await mcp.client.callTool({ name: 'implicit-whoami', arguments: {} }));

      expect(typeof first.infoInstanceId).toBe('number');
      expect(second.infoInstanceId).not.toBe(first.infoInstanceId);
      expect(first.request).toEqual({
        hasHeaders: true,
        sessionHeader: mcp.sessionId,
        method: 'POST',
        isExpress: E2E_HTTP_PLATFORM === 'express',
      });
    });
  });
});
