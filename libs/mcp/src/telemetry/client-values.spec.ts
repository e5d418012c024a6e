/**
 * Every value a client chooses that can reach a span or a metric attribute, one row each, and the
 * proof that what is recorded is bounded: replaced by `_OTHER`, left out until it names something
 * that exists, cut to `telemetry.maxAttributeLength`, or a digest. A client must not be able to add
 * series to a metric or megabytes to a span.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { McpPrompt, McpResource, McpTool } from '../decorators/index.js';
import { httpContext, McpTestClient, notification, request } from '../testing/mcp-testing-module.js';
import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import { memoryTelemetry, parentSpanIdOf, type MemoryTelemetry } from '../../../../test/support/otel-memory.js';
import { McpTelemetry } from './mcp-telemetry.js';
import { sessionIdDigest } from './recorded-values.js';

@Injectable()
class KnownNames {
  @McpTool({ name: 'known', description: 'A tool that exists' })
  known() {
    return 'ok';
  }

  @McpPrompt({ name: 'greeting', description: 'A prompt that exists' })
  greeting() {
    return 'hello';
  }

  @McpResource({ uriTemplate: 'notes://{id}', name: 'note' })
  note() {
    return 'a note';
  }
}

const MAX = 64;
const HUGE = 'x'.repeat(100_000);
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
/** The longest span name a bounded target allows: the longest MCP method, a space, the target. */
const MAX_SPAN_NAME = 'notifications/resources/list_changed'.length + 1 + MAX;

/** One row: what the client sends, and what the span of it must (not) carry. */
interface Row {
  readonly value: string;
  readonly send: (client: McpTestClient, ctx: McpDispatchContext) => Promise<unknown>;
  readonly check: (span: ReadableSpan, ctx: McpDispatchContext) => void;
}

const modern = (method: string, params: Record<string, unknown> = {}, id: string | number = 1) =>
  request(method, { ...params, _meta: { ...MODERN_META, ...(params._meta as object) } }, id);

const ROWS: Row[] = [
  {
    value: 'an unknown method name',
    send: (client) => client.dispatch(modern(`x/${HUGE.slice(0, 200)}`)),
    check: (span) => {
      expect(span.name).toBe('_OTHER');
      expect(span.attributes['mcp.method.name']).toBe('_OTHER');
    },
  },
  {
    value: 'a method name past 256 characters (refused -32600)',
    send: (client) => client.dispatch(request(HUGE, {}, 'long-method')),
    check: (span) => {
      expect(span.name).toBe('_OTHER');
      expect(span.attributes['error.type']).toBe('-32600');
    },
  },
  {
    value: 'an unknown notification name',
    send: (client) => client.dispatch(notification(`notifications/${HUGE.slice(0, 200)}`)),
    check: (span) => expect(span.attributes['mcp.method.name']).toBe('_OTHER'),
  },
  {
    value: 'an unknown tool name',
    send: (client) => client.dispatch(modern('tools/call', { name: HUGE, arguments: {} })),
    check: (span) => {
      expect(span.name).toBe('tools/call');
      expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
    },
  },
  {
    value: 'an unknown prompt name',
    send: (client) => client.dispatch(modern('prompts/get', { name: `${HUGE}` })),
    check: (span) => {
      expect(span.name).toBe('prompts/get');
      expect(span.attributes['gen_ai.prompt.name']).toBeUndefined();
    },
  },
  {
    value: 'a known tool name',
    send: (client) => client.dispatch(modern('tools/call', { name: 'known', arguments: {} })),
    check: (span) => expect(span.attributes['gen_ai.tool.name']).toBe('known'),
  },
  {
    value: 'a resource URI',
    send: (client) => client.dispatch(modern('resources/read', { uri: `notes://${'n'.repeat(5_000)}` })),
    check: (span) => expect(String(span.attributes['mcp.resource.uri'])).toMatch(/^notes:\/\/n+…$/),
  },
  {
    value: 'a request id',
    send: (client) => client.dispatch(modern('tools/list', {}, HUGE)),
    check: (span) => expect(String(span.attributes['jsonrpc.request.id'])).toHaveLength(MAX),
  },
  {
    value: 'a session id (2025 era)',
    send: (client, ctx) => client.dispatch(request('tools/list'), ctx),
    check: (span, ctx) => {
      expect(span.attributes['mcp.session.id']).toBe(sessionIdDigest(ctx.session!.id));
      expect(JSON.stringify(span.attributes)).not.toContain(ctx.session!.id);
    },
  },
  {
    value: 'a protocol version',
    send: (client) =>
      client.dispatch(
        request('tools/list', { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': HUGE } }),
      ),
    check: (span) => {
      expect(span.attributes['error.type']).toBe('-32022');
      expect(span.attributes['mcp.protocol.version']).toBeUndefined();
    },
  },
  {
    value: 'client name and version (never recorded)',
    send: (client) =>
      client.dispatch(
        modern('tools/list', {
          _meta: { 'io.modelcontextprotocol/clientInfo': { name: `client-${HUGE}`, version: `v-${HUGE}` } },
        }),
      ),
    check: (span) => expect(JSON.stringify(span.attributes)).not.toContain('client-x'),
  },
  {
    value: 'traceparent and tracestate',
    send: (client) =>
      client.dispatch(
        modern('tools/list', {
          _meta: {
            traceparent: TRACEPARENT,
            tracestate: Array.from({ length: 500 }, (_, i) => `k${i}=${HUGE.slice(0, 200)}`).join(','),
          },
        }),
      ),
    check: (span) => {
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      // The W3C propagator keeps at most 32 entries of at most 512 characters in all.
      expect((span.spanContext().traceState?.serialize() ?? '').length).toBeLessThanOrEqual(512);
    },
  },
  {
    value: 'a malformed traceparent',
    send: (client) => client.dispatch(modern('tools/list', { _meta: { traceparent: HUGE } })),
    check: (span) => expect(span.spanContext().traceId).not.toContain('x'),
  },
];

describe('client-chosen values on spans and metrics', () => {
  let memory: MemoryTelemetry;
  let client: McpTestClient;
  let session: McpDispatchContext;

  beforeAll(async () => {
    memory = memoryTelemetry();
    client = await McpTestClient.create({
      options: {
        telemetry: {
          tracerProvider: memory.tracerProvider,
          meterProvider: memory.meterProvider,
          maxAttributeLength: MAX,
        },
      },
      providers: [KnownNames],
    });
    session = await client.initialize('2025-11-25');
  });

  afterAll(async () => {
    await client.close();
    await memory.shutdown();
  });

  beforeEach(() => memory.reset());

  it.each(ROWS.map((row) => [row.value, row] as const))('%s is bounded on the span', async (_value, row) => {
    await row.send(client, session);

    const spans = memory.spans();
    expect(spans).toHaveLength(1);
    const [span] = spans;
    row.check(span, session);
    expect(span.name.length).toBeLessThanOrEqual(MAX_SPAN_NAME);
    for (const value of Object.values(span.attributes)) {
      if (typeof value === 'string') expect(value.length).toBeLessThanOrEqual(MAX);
    }
    expect((span.status.message ?? '').length).toBeLessThanOrEqual(MAX);
  });

  it('keeps every metric series to names the server serves, whatever the rows sent', async () => {
    for (const row of ROWS) await row.send(client, session);
    // A thousand invented methods and tools are still one series each.
    for (let i = 0; i < 1_000; i++) {
      await client.dispatch(modern(`invented/${i}`));
      await client.dispatch(modern('tools/call', { name: `invented-${i}`, arguments: {} }));
    }

    const points = await memory.histogramPoints('mcp.server.operation.duration');
    const methods = new Set(points.map((point) => point.attributes['mcp.method.name']));
    const served = [
      '_OTHER',
      'initialize',
      'notifications/initialized',
      'prompts/get',
      'resources/read',
      'tools/call',
      'tools/list',
    ];
    for (const method of methods) expect(served).toContain(method);
    expect(methods.has('_OTHER')).toBe(true);
    const tools = new Set(points.map((point) => point.attributes['gen_ai.tool.name']).filter(Boolean));
    expect([...tools]).toEqual(['known']);
    expect(points.length).toBeLessThan(40);
    for (const point of points) {
      for (const value of Object.values(point.attributes)) {
        if (typeof value === 'string') expect(value.length).toBeLessThanOrEqual(MAX);
      }
    }
  });
});

describe("a client's error answer to a request of the server (elicitation, sampling, roots)", () => {
  it('is bounded on the CLIENT span: its code as error.type and status code, its message, its attributes', async () => {
    const memory = memoryTelemetry();
    try {
      const telemetry = new McpTelemetry({
        tracerProvider: memory.tracerProvider,
        meterProvider: memory.meterProvider,
        maxAttributeLength: MAX,
      });
      await expect(
        telemetry.clientRequest(
          'elicitation/create',
          {},
          () => Promise.reject(new Error('refused')),
          () => ({
            errorType: HUGE,
            code: HUGE as unknown as number,
            message: HUGE,
            attributes: { 'app.detail': HUGE },
          }),
        ),
      ).rejects.toThrow('refused');

      const [span] = memory.spansNamed('elicitation/create');
      for (const value of Object.values(span.attributes)) {
        if (typeof value === 'string') expect(value.length).toBeLessThanOrEqual(MAX);
      }
      expect(String(span.attributes['error.type'])).toHaveLength(MAX);
      expect((span.status.message ?? '').length).toBeLessThanOrEqual(MAX);
    } finally {
      await memory.shutdown();
    }
  });
});

describe('telemetry.clientTraceContext and telemetry.sessionIds', () => {
  let memory: MemoryTelemetry;
  const clients: McpTestClient[] = [];

  const clientWith = async (telemetry: Record<string, unknown>) => {
    const client = await McpTestClient.create({
      options: {
        telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider, ...telemetry },
      },
      providers: [KnownNames],
    });
    clients.push(client);
    return client;
  };

  beforeEach(() => {
    memory = memoryTelemetry();
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await memory.shutdown();
  });

  const callWithTraceparent = (client: McpTestClient, ctx?: McpDispatchContext) =>
    client.dispatch(modern('tools/call', { name: 'known', arguments: {}, _meta: { traceparent: TRACEPARENT } }), ctx);

  it("'parent' (the default) makes the client's context the parent, as the conventions do", async () => {
    await callWithTraceparent(await clientWith({}));

    const [span] = memory.spansNamed('tools/call known');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(parentSpanIdOf(span)).toBe('00f067aa0ba902b7');
  });

  it("'link' starts a new trace, linked to the client's context (from _meta or the header)", async () => {
    const client = await clientWith({ clientTraceContext: 'link' });
    await callWithTraceparent(client);
    const header = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    await client.dispatch(
      modern('tools/call', { name: 'known', arguments: {} }),
      httpContext({ sessionsEnabled: false, request: { headers: { traceparent: header } } }),
    );

    const [fromMeta, fromHeader] = memory.spansNamed('tools/call known');
    expect(fromMeta.spanContext().traceId).not.toBe(TRACE_ID);
    expect(parentSpanIdOf(fromMeta)).toBeUndefined();
    expect(fromMeta.links.map((link) => link.context.traceId)).toEqual([TRACE_ID]);
    expect(fromHeader.spanContext().traceId).not.toBe('a'.repeat(32));
    expect(fromHeader.links.map((link) => link.context.spanId)).toEqual(['b'.repeat(16)]);
  });

  it("'link' keeps the server's sampling decision: a client's unsampled flag does not drop the span", async () => {
    await (
      await clientWith({ clientTraceContext: 'link' })
    ).dispatch(
      modern('tools/call', {
        name: 'known',
        arguments: {},
        _meta: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-00` },
      }),
    );

    const [span] = memory.spansNamed('tools/call known');
    expect(span.spanContext().traceFlags & 1).toBe(1);
  });

  it("'ignore' reads nothing of the client's: no parent, no link", async () => {
    await callWithTraceparent(await clientWith({ clientTraceContext: 'ignore' }));

    const [span] = memory.spansNamed('tools/call known');
    expect(span.spanContext().traceId).not.toBe(TRACE_ID);
    expect(parentSpanIdOf(span)).toBeUndefined();
    expect(span.links).toEqual([]);
  });

  it.each([
    ['digest', (id: string) => sessionIdDigest(id)],
    ['clear', (id: string) => id],
    ['none', () => undefined],
  ] as const)("sessionIds '%s' records the session id that way, on SERVER spans", async (mode, expected) => {
    const client = await clientWith({ sessionIds: mode });
    const ctx = await client.initialize('2025-11-25');
    await client.dispatch(request('tools/call', { name: 'known', arguments: {} }), ctx);

    const id = ctx.session!.id;
    expect(memory.spansNamed('initialize')[0].attributes['mcp.session.id']).toBe(expected(id));
    expect(memory.spansNamed('tools/call known')[0].attributes['mcp.session.id']).toBe(expected(id));
    if (mode !== 'clear') expect(JSON.stringify(memory.spans().map((span) => span.attributes))).not.toContain(id);
  });

  it('refuses values it does not know at startup', async () => {
    await expect(clientWith({ clientTraceContext: 'follow' })).rejects.toThrow(/telemetry.clientTraceContext/);
    await expect(clientWith({ sessionIds: 'hash' })).rejects.toThrow(/telemetry.sessionIds/);
    await expect(clientWith({ maxAttributeLength: 3 })).rejects.toThrow(/telemetry.maxAttributeLength/);
  });
});
