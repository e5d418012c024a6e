/**
 * The Redis backend's round trips as CLIENT spans of the request that made them, in the
 * database conventions, named by the script that ran; none without tracing, none for background
 * work.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { SpanStatusCode } from '@opentelemetry/api';
import { McpTool, ResourceNotificationService, type McpModuleOptions } from '@nest-mcp/server';
import { McpTestClient, request } from '@app/mcp/testing/mcp-testing-module.js';
import { memoryTelemetry, parentSpanIdOf, SpanKind, type MemoryTelemetry } from '../../../test/support/otel-memory.js';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { RedisMcpBackend } from './redis.backend.js';

@Injectable()
class NotifyingTools {
  constructor(private readonly notifications: ResourceNotificationService) {}

  /** One fan-out: the `mcpFanout` script, inside the request. */
  @McpTool({ name: 'touch', description: 'Notifies that a resource changed' })
  async touch() {
    await this.notifications.notifyResourceUpdated('memo://touched');
    return { content: [{ type: 'text', text: 'touched' }] };
  }
}

type Span = ReturnType<MemoryTelemetry['spans']>[number];

/** True when `ancestor` is `span`'s parent, or its parent's, and so on. */
function descendsFrom(span: Span, ancestor: Span, spans: readonly Span[]): boolean {
  const byId = new Map(spans.map((each) => [each.spanContext().spanId, each]));
  let parent = parentSpanIdOf(span);
  while (parent !== undefined) {
    if (parent === ancestor.spanContext().spanId) return true;
    const next = byId.get(parent);
    parent = next && parentSpanIdOf(next);
  }
  return false;
}

describe('Redis round trips as CLIENT spans', () => {
  let redis: TestRedis;
  let memory: MemoryTelemetry;
  let client: McpTestClient | undefined;

  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);

  /** The start of this test's client, awaited after the test even if the test gave up on it. */
  let starting: Promise<unknown> | undefined;

  afterEach(async () => {
    await starting?.catch(() => undefined);
    starting = undefined;
    await client?.close();
    client = undefined;
    await memory?.shutdown();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  let prefix: string;

  const start = async (telemetry: McpModuleOptions['telemetry'] = {}) => {
    memory = memoryTelemetry();
    prefix = redis.prefix();
    const creating = McpTestClient.create({
      options: {
        backend: new RedisMcpBackend({ url: redis.url, keyPrefix: prefix }),
        limits: { toolRateLimit: { limit: 1_000, windowMs: 60_000 } },
        telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider, ...telemetry },
      },
      providers: [NotifyingTools],
    });
    starting = creating.then((created) => (client = created));
    const created = await creating;
    const ctx = await created.initialize('2025-11-25');
    memory.reset();
    return { client: created, ctx };
  };

  it('puts each Redis command a tools/call sends under its SERVER span, named by the script', async () => {
    const { client, ctx } = await start();

    await client.dispatch(request('tools/call', { name: 'touch', arguments: {} }), ctx);

    const spans = memory.spans();
    const [server] = memory.spansNamed('tools/call touch');
    expect(server.kind).toBe(SpanKind.SERVER);
    const [rate] = memory.spansNamed('EVALSHA mcpRateHit');
    const [fanout] = memory.spansNamed('EVALSHA mcpFanout');
    for (const span of [rate, fanout]) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.spanContext().traceId).toBe(server.spanContext().traceId);
      expect(descendsFrom(span, server, spans)).toBe(true);
    }
    // The rate limit is taken by the tools/call itself: its round trip is a direct child.
    expect(parentSpanIdOf(rate)).toBe(server.spanContext().spanId);
    const url = new URL(redis.url);
    expect(fanout.attributes).toEqual({
      'db.system.name': 'redis',
      'db.operation.name': 'EVALSHA',
      'db.stored_procedure.name': 'mcpFanout',
      'db.namespace': '0',
      'server.address': url.hostname,
      'server.port': Number(url.port || 6379),
    });
    // Every Redis span made while serving belongs to the request: the heartbeat, the pub/sub
    // messages and the sweeps make none.
    const redisSpans = spans.filter((span) => span.attributes['db.system.name'] === 'redis');
    expect(redisSpans.length).toBeGreaterThanOrEqual(2);
    for (const span of redisSpans) expect(descendsFrom(span, server, spans)).toBe(true);
  });

  it('marks a failed command with error.type and the Redis error prefix', async () => {
    const { client, ctx } = await start();
    // The notification log turned into a string: the fan-out script's XADD fails (WRONGTYPE).
    await redis.command('SET', `${prefix}{ev}`, 'not a stream');

    await client.dispatch(request('tools/call', { name: 'touch', arguments: {} }), ctx);

    const [fanout] = memory.spansNamed('EVALSHA mcpFanout');
    expect(fanout.attributes['error.type']).toBe('WRONGTYPE');
    expect(fanout.attributes['db.response.status_code']).toBe('WRONGTYPE');
    expect(fanout.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('makes no span at all with tracing off', async () => {
    const { client, ctx } = await start({ tracing: false });

    await client.dispatch(request('tools/call', { name: 'touch', arguments: {} }), ctx);

    expect(memory.spans()).toEqual([]);
  });
});
