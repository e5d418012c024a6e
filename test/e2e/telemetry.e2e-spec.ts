/**
 * OpenTelemetry in the MCP semantic conventions, end to end: the SERVER span of a
 * `tools/call` on every transport and both eras, its parent from `_meta` or from the HTTP
 * `traceparent` header, the spans of what a handler causes (a request to the client in the 2025
 * era, a multi round-trip round in 2026-07-28, a fan-out with its audience counts), and the
 * operation metric. Spans go to an SDK tracer provider kept in memory (test/support/otel-memory.ts).
 */
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpCtx, McpResource, McpTool, ResourceNotificationService, type McpRequestContext } from '@app/mcp';
import { McpSessionManager } from '@app/mcp/session/mcp-session.manager.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { EchoTools } from '../fixtures/echo.tools.js';
import { Gates } from '../fixtures/gates.js';
import { TaskTools } from '../fixtures/task.tools.js';
import { modernRequest, modernResult, pollUntil } from '../support/modern-tasks-client.js';
import { memoryTelemetry, parentSpanIdOf, type MemoryTelemetry } from '../support/otel-memory.js';
import { openSession, parseSse, rawPost, type RawResponse } from '../support/raw-http.js';
import { stdioPipes, type StdioPipes } from '../support/stdio-pipes.js';
import { openDriver, TRANSPORT_KINDS, type McpDriver, type TransportKind } from '../support/transport-drivers.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { RedisMcpBackend } from '@nest-mcp/redis';

const WATCHED = 'db://watched';

@Injectable()
class TracedTools {
  constructor(private readonly notifications: ResourceNotificationService) {}

  @McpResource({ uri: WATCHED, name: 'watched', mimeType: 'text/plain' })
  watched() {
    return 'watched';
  }

  @McpTool({ name: 'touch', description: 'Notifies the watchers of db://watched' })
  async touch() {
    await this.notifications.notifyResourceUpdated(WATCHED);
    return 'touched';
  }

  @McpTool({ name: 'who', description: 'Asks the user for a name' })
  async who(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.elicit(
      { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
      { key: 'name' },
    );
    return `hello ${String(answer.content?.name)}`;
  }
}

const NETWORK: Record<TransportKind, Record<string, string>> = {
  'http-json': { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' },
  'http-sse': { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' },
  websocket: { 'network.transport': 'tcp', 'network.protocol.name': 'websocket' },
  stdio: { 'network.transport': 'pipe' },
  'legacy-sse': { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' },
};

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

let nextId = 1;
/** How long the slow session store takes per lookup. */
const LOOKUP_MS = 40;

describe('telemetry end to end', () => {
  let fixture: FixtureApp;
  let pipes: StdioPipes;
  let memory: MemoryTelemetry;

  beforeAll(async () => {
    memory = memoryTelemetry();
    pipes = stdioPipes();
    fixture = await startFixtureApp({
      providers: [EchoTools, TracedTools],
      mcp: {
        ws: {},
        sse: {},
        stdio: true,
        telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider },
      },
      overrides: [pipes.override],
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
  });

  /** One driver per transport for the whole file: stdio carries one session per process. */
  const drivers = new Map<TransportKind, Promise<McpDriver>>();
  const driverFor = (kind: TransportKind): Promise<McpDriver> => {
    if (!drivers.has(kind)) drivers.set(kind, openDriver(kind, fixture, pipes));
    return drivers.get(kind)!;
  };

  afterAll(async () => {
    for (const driver of drivers.values()) await (await driver).close();
    pipes.end();
    await fixture.close();
    await memory.shutdown();
  });

  beforeEach(() => memory.reset());

  /** A modern request over raw HTTP, with the headers the era asks for. */
  const modernCall = (name: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const id = nextId++;
    const { _meta, ...params } = extra as { _meta?: Record<string, unknown> };
    return rawPost(
      fixture.endpoint,
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: {}, ...params, _meta: { ...MODERN_META, ..._meta } },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name, ...headers },
    ).then((response) => ({ response, id }));
  };
  const resultOf = ({ response, id }: { response: RawResponse; id: number }) =>
    (response.json !== undefined ? [response.json] : parseSse(response.text).map((e) => JSON.parse(e.data))).find(
      (message: { id?: number }) => message.id === id,
    ).result;

  describe.each<TransportKind>(TRANSPORT_KINDS)('a 2025-era tools/call over %s', (kind) => {
    it('has one SERVER span with the session, the transport and the client address', async () => {
      const driver = await driverFor(kind);
      memory.reset();
      const id = nextId++;
      const answer = await driver.request(id, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
      expect(answer.result.isError).toBeUndefined();

      const [span] = memory.spansNamed('tools/call echo');
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'jsonrpc.request.id': String(id),
        'mcp.protocol.version': expect.stringMatching(/^20\d\d-\d\d-\d\d$/),
        'mcp.session.id': expect.any(String),
        ...NETWORK[kind],
      });
      if (kind === 'stdio') expect(span.attributes['client.address']).toBeUndefined();
      else expect(span.attributes['client.address']).toBe('127.0.0.1');
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
    });
  });

  describe.each<TransportKind>(TRANSPORT_KINDS)('a 2025-era tools/call over %s behind a slow session store', (kind) => {
    it('starts its SERVER span and its duration when the message arrived: the session lookup is inside', async () => {
      const driver = await driverFor(kind);
      const sessions = fixture.app.get(McpSessionManager, { strict: false });
      const lookup = sessions.resolve.bind(sessions);
      // A backend that takes its time (Redis far away): every lookup takes at least LOOKUP_MS.
      const slow = jest.spyOn(sessions, 'resolve').mockImplementation(async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, LOOKUP_MS));
        return lookup(...args);
      });
      const echoOnThisTransport = { 'gen_ai.tool.name': 'echo', ...NETWORK[kind] };
      const [before] = await memory.histogramPoints('mcp.server.operation.duration', echoOnThisTransport);
      memory.reset();
      try {
        const answer = await driver.request(nextId++, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
        expect(answer.result.isError).toBeUndefined();
        expect(slow).toHaveBeenCalled();
      } finally {
        slow.mockRestore();
      }

      const [span] = memory.spansNamed('tools/call echo');
      // A timer may fire up to a millisecond early: the bound leaves that room, no more.
      expect(hrTimeToMilliseconds(span.duration)).toBeGreaterThanOrEqual(LOOKUP_MS - 1);
      // The histogram is cumulative over the file: this call is what it gained.
      const [after] = await memory.histogramPoints('mcp.server.operation.duration', echoOnThisTransport);
      expect(after.value.count - (before?.value.count ?? 0)).toBe(1);
      expect((after.value.sum ?? 0) - (before?.value.sum ?? 0)).toBeGreaterThanOrEqual((LOOKUP_MS - 1) / 1000);
    });
  });

  describe.each<TransportKind>(['websocket', 'stdio'])('a 2026-07-28 tools/call over %s', (kind) => {
    it('has its parent from _meta, its own version and no session', async () => {
      const driver = await driverFor(kind);
      memory.reset();
      const answer = await driver.request(nextId++, 'tools/call', {
        name: 'echo',
        arguments: { text: 'hi' },
        _meta: { ...MODERN_META, traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
      });
      expect(answer.result.resultType).toBe('complete');

      const [span] = memory.spansNamed('tools/call echo');
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(parentSpanIdOf(span)).toBe(CLIENT_SPAN);
      expect(span.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28', ...NETWORK[kind] });
      expect(span.attributes['mcp.session.id']).toBeUndefined();
    });
  });

  describe.each<TransportKind>(['websocket', 'stdio'])('a refused 2026-07-28 tools/call over %s', (kind) => {
    it('has its SERVER span, with error.type, like every request the server answers', async () => {
      const driver = await driverFor(kind);
      memory.reset();
      const id = nextId++;
      const answer = await driver
        .request(id, 'tools/call', {
          name: 'echo',
          arguments: { text: 'hi' },
          _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
        })
        .catch((error: Error) => ({ error: { code: Number(/"code":(-?\d+)/.exec(error.message)?.[1]) } }));
      expect(answer.error.code).toBe(-32022);

      const spans = memory.spans().filter((span) => span.attributes['mcp.method.name'] === 'tools/call');
      expect(spans).toHaveLength(1);
      expect(spans[0].kind).toBe(SpanKind.SERVER);
      expect(spans[0].attributes).toMatchObject({ 'error.type': '-32022', 'jsonrpc.request.id': String(id) });
      expect(spans[0].status.code).toBe(SpanStatusCode.ERROR);
    });
  });

  it('a 2026-07-28 tools/call takes its parent from _meta, else from the traceparent header', async () => {
    await modernCall('echo', { arguments: { text: 'a' }, _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` } });
    const headerTrace = '11111111111111111111111111111111';
    await modernCall('echo', { arguments: { text: 'b' } }, { traceparent: `00-${headerTrace}-2222222222222222-01` });

    const [fromMeta, fromHeader] = memory.spansNamed('tools/call echo');
    expect(fromMeta.spanContext().traceId).toBe(TRACE_ID);
    expect(parentSpanIdOf(fromMeta)).toBe(CLIENT_SPAN);
    expect(fromMeta.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(fromMeta.attributes['mcp.session.id']).toBeUndefined();
    expect(fromHeader.spanContext().traceId).toBe(headerTrace);
    expect(parentSpanIdOf(fromHeader)).toBe('2222222222222222');
  });

  it('a fan-out is one PRODUCER span under the tool call, with its audience counts', async () => {
    const watcher = await fixture.connect();
    await watcher.client.subscribeResource({ uri: WATCHED });
    try {
      await modernCall('touch');

      const [server] = memory.spansNamed('tools/call touch');
      const [fanout] = memory.spansNamed('notifications/resources/updated');
      expect(fanout.kind).toBe(SpanKind.PRODUCER);
      expect(parentSpanIdOf(fanout)).toBe(server.spanContext().spanId);
      expect(fanout.attributes).toEqual({
        'mcp.method.name': 'notifications/resources/updated',
        'mcp.resource.uri': WATCHED,
        'nest_mcp.notification.sessions': 1,
        'nest_mcp.notification.listeners': 0,
      });
    } finally {
      await watcher.client.close();
    }
  });

  it('a 2025-era elicitation is a CLIENT span under the call, and the client receives its trace context', async () => {
    const client = new Client({ name: 'asked', version: '1' }, { capabilities: { elicitation: {} } });
    let received: Record<string, unknown> | undefined;
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      received = request.params._meta;
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(fixture.endpoint)));
    try {
      memory.reset();
      await client.callTool({ name: 'who', arguments: {} });

      const [server] = memory.spansNamed('tools/call who');
      const [asked] = memory.spansNamed('elicitation/create');
      expect(asked.kind).toBe(SpanKind.CLIENT);
      expect(parentSpanIdOf(asked)).toBe(server.spanContext().spanId);
      expect(asked.attributes).toMatchObject({
        'mcp.method.name': 'elicitation/create',
        'mcp.session.id': server.attributes['mcp.session.id'],
        'nest_mcp.client_request.channel': 'request',
      });
      expect(asked.status.code).toBe(SpanStatusCode.UNSET);
      expect(received?.traceparent).toBe(`00-${asked.spanContext().traceId}-${asked.spanContext().spanId}-01`);
    } finally {
      await client.close();
    }
  });

  it('a multi round-trip round: input_required on the first span, the answer on the retry', async () => {
    const first = resultOf(await modernCall('who'));
    expect(first.resultType).toBe('input_required');
    await modernCall('who', {
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.requestState,
    });

    const [round, retry] = memory.spansNamed('tools/call who');
    expect(round.attributes['nest_mcp.result_type']).toBe('input_required');
    expect(round.status.code).toBe(SpanStatusCode.UNSET);
    expect(retry.attributes['nest_mcp.result_type']).toBeUndefined();
    const [asked, answered] = memory.spansNamed('elicitation/create');
    expect(parentSpanIdOf(asked)).toBe(round.spanContext().spanId);
    expect(asked.attributes).toMatchObject({
      'nest_mcp.client_request.channel': 'mrtr',
      'nest_mcp.client_request.outcome': 'input_required',
    });
    expect(asked.status.code).toBe(SpanStatusCode.UNSET);
    expect(parentSpanIdOf(answered)).toBe(retry.spanContext().spanId);
    expect(answered.attributes['nest_mcp.client_request.outcome']).toBeUndefined();
  });

  it.each([
    ['an MCP-Protocol-Version no version is (-32022)', { 'mcp-protocol-version': '2099-01-01' }, true],
    ['no session id on a 2025-era request', {}, false],
  ])(
    'a 2025-era tools/call refused over HTTP for %s has its SERVER span with error.type',
    async (_why, headers, withSession) => {
      const session = withSession ? (await openSession(fixture.endpoint)).headers : {};
      memory.reset();
      const id = nextId++;
      const response = await rawPost(
        fixture.endpoint,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
        { ...session, ...headers },
      );
      expect(response.status).toBe(400);
      const { error } = response.json as { error: { code: number } };

      const spans = memory.spans().filter((span) => span.attributes['mcp.method.name'] === 'tools/call');
      expect(spans).toHaveLength(1);
      expect(spans[0].attributes).toMatchObject({ 'jsonrpc.request.id': String(id), 'error.type': String(error.code) });
    },
  );

  it('a 2025-era message whose session is unknown: its SERVER span ends with the 404 it got', async () => {
    const id = nextId++;
    const response = await rawPost(
      fixture.endpoint,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
      { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' },
    );
    expect(response.status).toBe(404);
    const { error } = response.json as { error: { code: number; message: string } };

    const [span] = memory.spansNamed('tools/call echo');
    expect(span.attributes).toMatchObject({
      'jsonrpc.request.id': String(id),
      'error.type': String(error.code),
      'rpc.response.status_code': String(error.code),
    });
    expect(span.attributes['mcp.session.id']).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: error.message });
  });

  it('counts every operation in mcp.server.operation.duration by transport', async () => {
    const driver = await driverFor('websocket');
    await driver.request(nextId++, 'tools/call', { name: 'echo', arguments: { text: 'x' } });
    const [point] = await memory.histogramPoints('mcp.server.operation.duration', {
      'gen_ai.tool.name': 'echo',
      'network.protocol.name': 'websocket',
    });
    expect(point.value.count).toBeGreaterThanOrEqual(1);
    expect(point.attributes['mcp.session.id']).toBeUndefined();
    expect(point.attributes['jsonrpc.request.id']).toBeUndefined();
  });
});

describe('telemetry of a task that asks the client', () => {
  let fixture: FixtureApp;
  let memory: MemoryTelemetry;

  beforeAll(async () => {
    memory = memoryTelemetry();
    fixture = await startFixtureApp({
      providers: [Gates, TaskTools],
      mcp: { telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider } },
    });
  });

  afterAll(async () => {
    await fixture.close();
    await memory.shutdown();
  });

  it('its input request is a CLIENT span of channel task under the call that created it', async () => {
    const created = (
      await modernRequest(fixture.endpoint, 'tools/call', { name: 'ask_as_task', arguments: { key: 'k' } })
    ).message.result;
    expect(created.resultType).toBe('task');
    await pollUntil(fixture.endpoint, created.taskId, ['input_required']);
    await modernResult(fixture.endpoint, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Kim' } } },
    });
    await pollUntil(fixture.endpoint, created.taskId, ['completed']);

    const [call] = memory.spansNamed('tools/call ask_as_task');
    expect(call.attributes['nest_mcp.result_type']).toBe('task');
    const [asked] = memory.spansNamed('elicitation/create');
    expect(asked.kind).toBe(SpanKind.CLIENT);
    expect(parentSpanIdOf(asked)).toBe(call.spanContext().spanId);
    expect(asked.attributes).toMatchObject({
      'nest_mcp.client_request.channel': 'task',
      'nest_mcp.task.id': created.taskId,
    });
    expect(asked.status.code).toBe(SpanStatusCode.UNSET);
    expect(memory.spansNamed('tasks/update')).toHaveLength(1);
  });
});

describe('telemetry of a 2025-era message on Redis', () => {
  let redis: TestRedis;
  let fixture: FixtureApp;
  let memory: MemoryTelemetry;

  beforeAll(async () => {
    redis = await startRedis();
    memory = memoryTelemetry();
    fixture = await startFixtureApp({
      providers: [EchoTools],
      mcp: {
        ws: {},
        backend: new RedisMcpBackend({ url: redis.url, keyPrefix: redis.prefix() }),
        telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider },
      },
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
  }, 30_000);

  afterAll(async () => {
    await fixture?.close();
    await memory?.shutdown();
    await redis?.stop();
  });

  it.each<TransportKind>(['http-json', 'websocket'])(
    'over %s, the session lookup is a CLIENT span under the SERVER span',
    async (kind) => {
      const driver = await openDriver(kind, fixture);
      try {
        // Lookups of one session in one turn are shared (one script call, in the context of the
        // first): a ping first, so that notifications/initialized is not looked up with the call.
        await driver.request(nextId++, 'ping', {});
        memory.reset();
        const answer = await driver.request(nextId++, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
        expect(answer.result.isError).toBeUndefined();
      } finally {
        await driver.close();
      }

      const [server] = memory.spansNamed('tools/call echo');
      const lookups = memory.spans().filter((span) => span.attributes['db.stored_procedure.name'] === 'mcpAccess');
      expect(lookups).toHaveLength(1);
      expect(lookups[0].kind).toBe(SpanKind.CLIENT);
      expect(lookups[0].spanContext().traceId).toBe(server.spanContext().traceId);
      expect(parentSpanIdOf(lookups[0])).toBe(server.spanContext().spanId);
    },
  );
});
