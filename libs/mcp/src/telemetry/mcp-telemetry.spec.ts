import 'reflect-metadata';
import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable, UseInterceptors, type CallHandler, type NestInterceptor } from '@nestjs/common';
import { tap } from 'rxjs';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { McpTool } from '../decorators/index.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { httpContext, McpTestClient, notification, request } from '../testing/mcp-testing-module.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { memoryTelemetry, parentSpanIdOf, type MemoryTelemetry } from '../../../../test/support/otel-memory.js';
import { DURATION_BUCKETS_SECONDS } from './semconv.js';
import { McpTelemetry } from './mcp-telemetry.js';
import { NO_OPERATION } from './mcp-operation.js';
import { sessionIdDigest, telemetryCatalog } from './recorded-values.js';

/** A fresh SDK per test: metrics are cumulative. */
let memory: MemoryTelemetry;

/** A Nest interceptor that opens a span around the handler: enhancers run inside the server span too. */
@Injectable()
class SpanningInterceptor implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler) {
    const span = memory.tracerProvider.getTracer('app').startSpan('app.interceptor');
    return next.handle().pipe(tap({ complete: () => span.end() }));
  }
}

@Injectable()
class TracedTools {
  @McpTool({ name: 'intercepted', description: 'Runs behind an interceptor' })
  @UseInterceptors(SpanningInterceptor)
  intercepted() {
    return 'ok';
  }

  /** Opens a span of its own: it must nest under the server span with no code of its own. */
  @McpTool({ name: 'traced', description: 'Opens a span of its own' })
  async traced() {
    const tracer = memory.tracerProvider.getTracer('app');
    await tracer.startActiveSpan('app.work', async (span) => {
      await Promise.resolve();
      span.end();
    });
    return { content: [{ type: 'text', text: 'done' }] };
  }

  @McpTool({ name: 'refuses', description: 'Answers isError' })
  refuses() {
    return { isError: true, content: [{ type: 'text', text: 'no such city' }] };
  }
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

const clientWith = (telemetry: McpModuleOptions['telemetry'] = {}) =>
  McpTestClient.create({
    options: {
      telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider, ...telemetry },
    },
    providers: [TracedTools, SpanningInterceptor],
  });

describe('telemetry of inbound messages', () => {
  let client: McpTestClient;

  beforeEach(async () => {
    await client?.close();
    await memory?.shutdown();
    memory = memoryTelemetry();
    client = await clientWith();
  });

  afterAll(() => client?.close());

  it('gives a 2025-era tools/call one SERVER span in the conventions, with the handler spans under it', async () => {
    const ctx = await client.initialize('2025-11-25');
    memory.reset();

    await client.dispatch(request('tools/call', { name: 'traced', arguments: {} }, 'call-7'), ctx);

    const [server] = memory.spansNamed('tools/call traced');
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'traced',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': 'call-7',
      'mcp.protocol.version': '2025-11-25',
      // A digest of the id, never the id itself: without authorization the id is the credential.
      'mcp.session.id': sessionIdDigest(ctx.session!.id),
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    const [work] = memory.spansNamed('app.work');
    expect(work.spanContext().traceId).toBe(server.spanContext().traceId);
    expect(parentSpanIdOf(work)).toBe(server.spanContext().spanId);
  });

  it('runs the Nest enhancers inside the server span', async () => {
    await client.dispatch(request('tools/call', { name: 'intercepted', arguments: {}, _meta: MODERN_META }));

    const [server] = memory.spansNamed('tools/call intercepted');
    const [interceptor] = memory.spansNamed('app.interceptor');
    expect(parentSpanIdOf(interceptor)).toBe(server.spanContext().spanId);
  });

  it('takes the parent from params._meta traceparent, as the conventions ask', async () => {
    await client.dispatch(
      request('tools/call', { name: 'traced', arguments: {}, _meta: { ...MODERN_META, traceparent: TRACEPARENT } }),
    );

    const [server] = memory.spansNamed('tools/call traced');
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(parentSpanIdOf(server)).toBe(PARENT_ID);
    expect(server.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(server.attributes['mcp.session.id']).toBeUndefined();
  });

  it('falls back to the HTTP traceparent header, and prefers _meta over it', async () => {
    const otherTrace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const headers = { traceparent: `00-${otherTrace}-bbbbbbbbbbbbbbbb-01` };
    const withHeader = httpContext({ sessionsEnabled: false, request: { headers } });

    await client.dispatch(request('tools/call', { name: 'traced', arguments: {}, _meta: MODERN_META }), withHeader);
    await client.dispatch(
      request('tools/call', { name: 'traced', arguments: {}, _meta: { ...MODERN_META, traceparent: TRACEPARENT } }),
      withHeader,
    );

    const [fromHeader, fromMeta] = memory.spansNamed('tools/call traced');
    expect(fromHeader.spanContext().traceId).toBe(otherTrace);
    expect(parentSpanIdOf(fromHeader)).toBe('bbbbbbbbbbbbbbbb');
    expect(fromMeta.spanContext().traceId).toBe(TRACE_ID);
  });

  it('links the ambient span when _meta names the parent', async () => {
    const ambient = memory.tracerProvider.getTracer('http').startSpan('POST /mcp');
    const { context } = await import('@opentelemetry/api');
    await context.with(trace.setSpan(context.active(), ambient), () =>
      client.dispatch(
        request('tools/call', { name: 'traced', arguments: {}, _meta: { ...MODERN_META, traceparent: TRACEPARENT } }),
      ),
    );
    ambient.end();

    const [server] = memory.spansNamed('tools/call traced');
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.links.map((link) => link.context.spanId)).toEqual([ambient.spanContext().spanId]);
  });

  it('marks a JSON-RPC error with error.type, the code and the message (an unknown tool is not named)', async () => {
    const answer = await client.dispatch(request('tools/call', { name: 'missing', arguments: {}, _meta: MODERN_META }));

    const [server] = memory.spansNamed('tools/call');
    expect(server.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(server.attributes['error.type']).toBe('-32602');
    expect(server.attributes['rpc.response.status_code']).toBe('-32602');
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    expect(server.status.message).toBe((answer as { error: { message: string } }).error.message);
  });

  it("marks a tool's isError result as tool_error", async () => {
    await client.dispatch(request('tools/call', { name: 'refuses', arguments: {}, _meta: MODERN_META }));

    const [server] = memory.spansNamed('tools/call refuses');
    expect(server.attributes['error.type']).toBe('tool_error');
    expect(server.attributes['rpc.response.status_code']).toBeUndefined();
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('gives notifications a span, and each element of a batch its own', async () => {
    const ctx = await client.initialize('2025-03-26');
    memory.reset();

    await client.dispatch(notification('notifications/initialized'), ctx);
    await client.dispatch([request('tools/list'), request('tools/call', { name: 'traced', arguments: {} })], ctx);

    expect(memory.spans().map((span) => span.name)).toEqual(
      expect.arrayContaining(['notifications/initialized', 'tools/list', 'tools/call traced']),
    );
    expect(memory.spansNamed('tools/list')[0].attributes['mcp.protocol.version']).toBe('2025-03-26');
  });

  it('records the session and version an initialize creates', async () => {
    const ctx = await client.initialize('2025-06-18');

    const [server] = memory.spansNamed('initialize');
    expect(server.attributes['mcp.session.id']).toBe(sessionIdDigest(ctx.session!.id));
    expect(server.attributes['mcp.protocol.version']).toBe('2025-06-18');
  });

  it('records mcp.server.operation.duration in seconds with the conventions attribute set and buckets', async () => {
    await client.dispatch(request('tools/call', { name: 'traced', arguments: {}, _meta: MODERN_META }));
    await client.dispatch(request('tools/call', { name: 'missing', arguments: {}, _meta: MODERN_META }));

    const metric = (await memory.metrics()).get('mcp.server.operation.duration')!;
    expect(metric.descriptor.unit).toBe('s');
    const [ok] = await memory.histogramPoints('mcp.server.operation.duration', { 'gen_ai.tool.name': 'traced' });
    expect(ok.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'traced',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(ok.value.count).toBe(1);
    expect(ok.value.buckets.boundaries).toEqual(DURATION_BUCKETS_SECONDS);
    const [failed] = await memory.histogramPoints('mcp.server.operation.duration', { 'error.type': '-32602' });
    expect(failed.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(failed.attributes['error.type']).toBe('-32602');
    expect(failed.attributes['rpc.response.status_code']).toBe('-32602');
  });

  it('records mcp.server.session.duration once, when the session ends', async () => {
    const ctx = await client.initialize('2025-11-25');
    expect(await memory.histogramPoints('mcp.server.session.duration')).toEqual([]);

    await client.module.get(McpSessionManager).end(ctx.session!.id, 'deleted');

    const [point] = await memory.histogramPoints('mcp.server.session.duration');
    expect(point.value.count).toBe(1);
    expect(point.attributes).toEqual({
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
  });
});

describe('telemetry options', () => {
  let client: McpTestClient | undefined;

  beforeEach(async () => {
    await client?.close();
    await memory?.shutdown();
    memory = memoryTelemetry();
  });

  afterAll(async () => {
    await client?.close();
    await memory.shutdown();
  });

  it('records nothing with tracing and metrics off', async () => {
    client = await clientWith({ tracing: false, metrics: false });

    await client.dispatch(request('tools/call', { name: 'traced', arguments: {}, _meta: MODERN_META }));

    expect(memory.spansNamed('tools/call traced')).toEqual([]);
    expect(await memory.histogramPoints('mcp.server.operation.duration', { 'gen_ai.tool.name': 'traced' })).toEqual([]);
    // The handler's own span still runs, with no server span to nest under.
    expect(memory.spansNamed('app.work')).toHaveLength(1);
  });

  it('has transports take no time stamp with tracing and metrics off, and one per message otherwise', () => {
    expect(new McpTelemetry({ tracing: false, metrics: false }).receivedNow()).toBeUndefined();
    const on = new McpTelemetry({ tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider });
    expect(on.receivedNow()).toEqual(expect.any(Number));
  });

  it('starts the span and the duration at the time the message arrived, when the transport gave it', async () => {
    const servesAll = telemetryCatalog(
      () => true,
      () => true,
      () => true,
    );
    const telemetry = new McpTelemetry(
      { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider },
      undefined,
      servesAll,
    );
    // Arrived 250 ms before dispatch: a slow authentication or session lookup came first.
    const receivedAt = performance.now() - 250;
    const operation = telemetry.startOperation({ method: 'ping', id: 1, transport: 'stdio', receivedAt });
    operation.end({});

    const [span] = memory.spansNamed('ping');
    const startMs = span.startTime[0] * 1_000 + span.startTime[1] / 1e6;
    expect(Math.abs(startMs - (performance.timeOrigin + receivedAt))).toBeLessThan(1);
    expect(span.duration[0] * 1_000 + span.duration[1] / 1e6).toBeGreaterThanOrEqual(250);
    const [point] = await memory.histogramPoints('mcp.server.operation.duration', { 'mcp.method.name': 'ping' });
    expect(point.value.sum).toBeGreaterThanOrEqual(0.25);
  });

  it('leaves out tool names and resource URIs when asked to', async () => {
    client = await clientWith({ recordTargetNames: false, recordResourceUris: false });

    await client.dispatch(request('tools/call', { name: 'traced', arguments: {}, _meta: MODERN_META }));
    await client.dispatch(request('resources/read', { uri: 'db://users/alice', _meta: MODERN_META }));

    const [call] = memory.spansNamed('tools/call');
    expect(call.attributes['gen_ai.tool.name']).toBeUndefined();
    const [read] = memory.spansNamed('resources/read');
    expect(read.attributes['mcp.resource.uri']).toBeUndefined();
  });

  it('records resource URIs on spans by default, never on metrics', async () => {
    client = await clientWith();

    await client.dispatch(request('resources/read', { uri: 'db://users/alice', _meta: MODERN_META }));

    expect(memory.spansNamed('resources/read')[0].attributes['mcp.resource.uri']).toBe('db://users/alice');
    const points = await memory.histogramPoints('mcp.server.operation.duration', {
      'mcp.method.name': 'resources/read',
    });
    expect(points[0].attributes['mcp.resource.uri']).toBeUndefined();
  });

  it('adds the attributes of the application callback, and ignores one that throws', async () => {
    let calls = 0;
    client = await clientWith({
      attributes: (req) => {
        calls += 1;
        if (req.target === 'refuses') throw new Error('callback bug');
        return { 'app.tenant': 'acme', 'app.method': req.method };
      },
    });

    await client.dispatch(request('tools/call', { name: 'traced', arguments: {}, _meta: MODERN_META }));
    await client.dispatch(request('tools/call', { name: 'refuses', arguments: {}, _meta: MODERN_META }));

    expect(calls).toBe(2);
    expect(memory.spansNamed('tools/call traced')[0].attributes).toMatchObject({
      'app.tenant': 'acme',
      'app.method': 'tools/call',
    });
    expect(memory.spansNamed('tools/call refuses')).toHaveLength(1);
  });

  it('refuses telemetry options of the wrong kind at startup', async () => {
    await expect(clientWith({ tracing: 'yes' as unknown as boolean })).rejects.toThrow(
      "McpModule option 'telemetry.tracing' must be true or false",
    );
    await expect(McpTestClient.create({ options: { telemetry: { meterProvider: {} as never } } })).rejects.toThrow(
      "'telemetry.meterProvider' must be an OpenTelemetry meterProvider",
    );
    await expect(McpTestClient.create({ options: { telemetry: { sampler: 1 } as never } })).rejects.toThrow(
      "McpModule option 'telemetry.sampler' is unknown",
    );
  });
});

describe('telemetry without an SDK', () => {
  it('serves each message with the shared no-op operation: no span, no attributes, no timing', () => {
    // No provider passed and none registered globally: the API's no-ops.
    const telemetry = new McpTelemetry();
    const operation = telemetry.startOperation({
      method: 'tools/call',
      id: 1,
      params: { name: 'echo', arguments: {} },
      transport: 'streamable-http',
      request: { httpVersionMajor: 1, httpVersionMinor: 1, headers: {} },
    });

    expect(operation).toBe(NO_OPERATION);
  });
});
