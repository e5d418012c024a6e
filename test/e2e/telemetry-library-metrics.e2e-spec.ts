/**
 * The library's own instruments over real transports: `nest_mcp.streams.held` by
 * transport, `nest_mcp.tasks` by status, and `nest_mcp.requests.refused` by reason on each
 * transport a reason exists on (Streamable HTTP, legacy HTTP+SSE, WebSocket, stdio). The app
 * records into an in-memory OpenTelemetry SDK (`test/support/otel-memory.ts`); gauges are read at
 * collection, and every wait is on a condition, never a delay.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WsAdapter } from '@nestjs/platform-ws';
import type { PassThrough } from 'node:stream';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { Gates } from '../fixtures/gates.js';
import { TaskTools } from '../fixtures/task.tools.js';
import { openLegacySse, type LegacySseClient } from '../support/legacy-sse-client.js';
import { memoryTelemetry, type MemoryTelemetry } from '../support/otel-memory.js';
import { openSse, wireRequest } from '../support/http-wire.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { stdioPipes, type StdioPipes } from '../support/stdio-pipes.js';
import { until } from '../support/until.js';
import { openWs, refusedUpgradeStatus, wsUrl, type RawWsClient } from '../support/ws-client.js';
import { STUB_ISSUER, StubTokenVerifier } from '../support/oauth/stub-verifier.js';

const MAX_MESSAGE_BYTES = 16 * 1024;
const MAX_IN_FLIGHT = 2;
const FOREIGN_ORIGIN = 'http://evil.example';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Transport = 'streamable-http' | 'sse' | 'websocket' | 'stdio';

/** The sum of a gauge's or counter's points whose attributes include `match` (0 when none). */
async function total(memory: MemoryTelemetry, name: string, match: Record<string, string> = {}): Promise<number> {
  return (await memory.valuePoints(name, match)).reduce((sum, point) => sum + point.value, 0);
}

const refusedCount = (memory: MemoryTelemetry, reason: string, transport: Transport) =>
  total(memory, 'nest_mcp.requests.refused', { 'nest_mcp.refusal.reason': reason, 'nest_mcp.transport': transport });

/** Runs `act` and asserts it added exactly one refusal of `reason` on `transport`. */
async function expectOneRefusal(
  memory: MemoryTelemetry,
  reason: string,
  transport: Transport,
  act: () => Promise<void>,
): Promise<void> {
  const before = await refusedCount(memory, reason, transport);
  await act();
  expect((await refusedCount(memory, reason, transport)) - before).toBe(1);
}

let nextId = 1;
const rpc = (method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: '2.0', id: nextId++, method } : { jsonrpc: '2.0', id: nextId++, method, params };
const pad = () => rpc('tools/call', { name: 'instant', arguments: { key: 'x'.repeat(MAX_MESSAGE_BYTES) } });

describe('the library metrics on every transport', () => {
  let memory: MemoryTelemetry;
  let fixture: FixtureApp;
  let pipes: StdioPipes;
  let gates: Gates;
  let ws: RawWsClient;
  let legacy: LegacySseClient;
  let session: Record<string, string>;

  beforeAll(async () => {
    memory = memoryTelemetry();
    pipes = stdioPipes();
    fixture = await startFixtureApp({
      providers: [Gates, TaskTools],
      mcp: {
        ws: {},
        sse: {},
        stdio: true,
        limits: {
          maxBodyBytes: MAX_MESSAGE_BYTES,
          maxInFlightRequests: MAX_IN_FLIGHT,
          toolRateLimit: { limit: 1, windowMs: 600_000 },
        },
        tasks: { maxPerInstance: 1 },
        telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider },
      },
      overrides: [pipes.override],
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
    gates = fixture.app.get(Gates);
    await pipes.initialize();
    ws = await openWs(wsUrl(fixture.origin));
    await ws.initialize();
    legacy = await openLegacySse(fixture.origin);
    await legacy.initialize();
    session = (await openSession(fixture.endpoint)).headers;
  });

  afterAll(async () => {
    await ws?.close();
    legacy?.close();
    pipes?.end();
    await fixture?.close();
    await memory?.shutdown();
  });

  it('nest_mcp.streams.held counts the streams each transport holds, by nest_mcp.transport', async () => {
    const held = (transport: Transport) => total(memory, 'nest_mcp.streams.held', { 'nest_mcp.transport': transport });
    expect(await held('streamable-http')).toBe(0);

    const get = await openSse(fixture.endpoint, { headers: { ...session, accept: 'text/event-stream' } });
    expect(get.status).toBe(200);

    expect(await held('streamable-http')).toBe(1);
    expect(await held('websocket')).toBe(1);
    expect(await held('sse')).toBe(1);
    expect(await held('stdio')).toBe(1);
    const metric = (await memory.metrics()).get('nest_mcp.streams.held')!;
    expect(metric.descriptor.unit).toBe('{stream}');

    get.close();
    await until(async () => (await held('streamable-http')) === 0, 'the GET stream is no longer held');
  });

  it('nest_mcp.tasks counts the task running here as working, and nothing once it ended', async () => {
    const working = () => total(memory, 'nest_mcp.tasks', { 'nest_mcp.task.status': 'working' });
    expect(await working()).toBe(0);
    const taskSession = (await openSession(fixture.endpoint)).headers;
    const key = 'metrics-task';

    const created = await rawPost(
      fixture.endpoint,
      rpc('tools/call', { name: 'gated', arguments: { key }, task: { ttl: 60_000 } }),
      { ...taskSession, accept: 'application/json' },
    );
    expect((created.json as { result: { task: { status: string } } }).result.task.status).toBe('working');
    await gates.gate(key).whenArrived(1);

    expect(await working()).toBe(1);
    expect(await total(memory, 'nest_mcp.tasks', { 'nest_mcp.task.status': 'input_required' })).toBe(0);
    // tasks.maxPerInstance is 1: another caller's task is refused for capacity (503) meanwhile.
    const other = (await openSession(fixture.endpoint)).headers;
    await expectOneRefusal(memory, 'capacity', 'streamable-http', async () => {
      const refused = await rawPost(
        fixture.endpoint,
        rpc('tools/call', { name: 'gated', arguments: { key: 'second' }, task: { ttl: 60_000 } }),
        { ...other, accept: 'application/json' },
      );
      expect(refused.status).toBe(503);
    });

    gates.gate(key).open();
    await until(async () => (await working()) === 0, 'the task ended');
  });

  describe('nest_mcp.requests.refused, by reason and transport', () => {
    it('origin: a foreign Origin on a POST, a GET /sse and a WebSocket upgrade', async () => {
      await expectOneRefusal(memory, 'origin', 'streamable-http', async () => {
        expect((await rawPost(fixture.endpoint, rpc('ping'), { ...session, origin: FOREIGN_ORIGIN })).status).toBe(403);
      });
      await expectOneRefusal(memory, 'origin', 'sse', async () => {
        const refused = await wireRequest(`${fixture.origin}/sse`, {
          method: 'GET',
          headers: { accept: 'text/event-stream', origin: FOREIGN_ORIGIN },
        });
        expect(refused.status).toBe(403);
      });
      await expectOneRefusal(memory, 'origin', 'websocket', async () => {
        expect(await refusedUpgradeStatus(wsUrl(fixture.origin), { origin: FOREIGN_ORIGIN })).toBe(403);
      });
      const [point] = await memory.valuePoints('nest_mcp.requests.refused', {
        'nest_mcp.refusal.reason': 'origin',
        'nest_mcp.transport': 'websocket',
      });
      expect(point.attributes).toEqual({
        'nest_mcp.refusal.reason': 'origin',
        'nest_mcp.transport': 'websocket',
        'network.transport': 'tcp',
        'network.protocol.name': 'websocket',
      });
    });

    it('size: a body past maxBodyBytes on each transport (413, WebSocket 1009, a stdio line)', async () => {
      await expectOneRefusal(memory, 'size', 'streamable-http', async () => {
        expect((await rawPost(fixture.endpoint, pad(), session)).status).toBe(413);
      });
      await expectOneRefusal(memory, 'size', 'sse', async () => {
        expect((await legacy.post(pad())).status).toBe(413);
      });
      await expectOneRefusal(memory, 'size', 'stdio', async () => {
        const from = pipes.messages.length;
        pipes.send(pad());
        expect((await pipes.waitFor((m) => m?.id === null, 5_000, from)).error.code).toBe(-32600);
      });
      await expectOneRefusal(memory, 'size', 'websocket', async () => {
        const big = await openWs(wsUrl(fixture.origin));
        await big.sendRaw(JSON.stringify(pad()));
        expect((await big.closed).code).toBe(1009);
      });
    });

    it('invalid: bytes that are not JSON on each transport', async () => {
      await expectOneRefusal(memory, 'invalid', 'streamable-http', async () => {
        expect((await rawPost(fixture.endpoint, '{not json', session)).status).toBe(400);
      });
      await expectOneRefusal(memory, 'invalid', 'sse', async () => {
        expect((await legacy.post('{not json')).status).toBe(400);
      });
      await expectOneRefusal(memory, 'invalid', 'websocket', async () => {
        const from = ws.messages.length;
        await ws.sendRaw('{not json');
        expect((await ws.waitFor((m) => m?.id === null, 5_000, from)).error.code).toBe(-32700);
      });
      await expectOneRefusal(memory, 'invalid', 'stdio', async () => {
        const from = pipes.messages.length;
        (pipes.override.useValue as { input: PassThrough }).input.write('{not json\n');
        expect((await pipes.waitFor((m) => m?.id === null, 5_000, from)).error.code).toBe(-32700);
      });
    });

    it('era: a batch on a 2025-11-25 session, and a 2026-07-28 request on legacy HTTP+SSE', async () => {
      const batch = () => [rpc('ping'), rpc('ping')];
      await expectOneRefusal(memory, 'era', 'streamable-http', async () => {
        const refused = await rawPost(fixture.endpoint, batch(), session);
        expect((refused.json as { error: { code: number } }).error.code).toBe(-32600);
      });
      await expectOneRefusal(memory, 'era', 'websocket', async () => {
        const from = ws.messages.length;
        await ws.send(batch());
        expect((await ws.waitFor((m) => m?.id === null, 5_000, from)).error.code).toBe(-32600);
      });
      await expectOneRefusal(memory, 'era', 'stdio', async () => {
        const from = pipes.messages.length;
        pipes.send(batch());
        expect((await pipes.waitFor((m) => m?.id === null, 5_000, from)).error.code).toBe(-32600);
      });
      await expectOneRefusal(memory, 'era', 'sse', async () => {
        const answer = await legacy.request(nextId++, 'tools/list', { _meta: MODERN_META });
        expect(answer.error.code).toBe(-32000);
      });
    });

    it('capacity: a batch past maxInFlightRequests on a connection (WebSocket, stdio, legacy HTTP+SSE)', async () => {
      const tooMany = () => Array.from({ length: MAX_IN_FLIGHT + 1 }, () => rpc('ping'));
      await expectOneRefusal(memory, 'capacity', 'websocket', async () => {
        const from = ws.messages.length;
        await ws.send(tooMany());
        expect((await ws.waitFor((m) => m?.id === null, 5_000, from)).error.code).toBe(-32004);
      });
      await expectOneRefusal(memory, 'capacity', 'stdio', async () => {
        const from = pipes.messages.length;
        pipes.send(tooMany());
        expect((await pipes.waitFor((m) => m?.id === null, 5_000, from)).error.code).toBe(-32004);
      });
      await expectOneRefusal(memory, 'capacity', 'sse', async () => {
        const from = legacy.stream.events.length;
        expect((await legacy.post(tooMany())).status).toBe(202);
        const event = await legacy.stream.waitFor((e) => e.json?.id === null, 5_000, from);
        expect(event.json.error.code).toBe(-32004);
      });
    });

    it('rate: the tool rate limiter over Streamable HTTP and WebSocket', async () => {
      const call = () => rpc('tools/call', { name: 'instant', arguments: { key: 'k' } });
      const limited = (await openSession(fixture.endpoint)).headers;
      expect((await rawPost(fixture.endpoint, call(), limited)).status).toBe(200);
      await expectOneRefusal(memory, 'rate', 'streamable-http', async () => {
        expect((await rawPost(fixture.endpoint, call(), limited)).status).toBe(429);
      });
      expect((await ws.request('tools/call', { name: 'instant', arguments: { key: 'k' } })).result).toBeDefined();
      await expectOneRefusal(memory, 'rate', 'websocket', async () => {
        const answer = await ws.request('tools/call', { name: 'instant', arguments: { key: 'k' } });
        expect(answer.error.code).toBe(-32004);
      });
    });
  });
});

describe('auth refusals (resource-server mode)', () => {
  const verifier = new StubTokenVerifier();
  let memory: MemoryTelemetry;
  let fixture: FixtureApp;

  beforeAll(async () => {
    memory = memoryTelemetry();
    fixture = await startFixtureApp({
      mcp: {
        ws: {},
        sse: {},
        auth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [STUB_ISSUER], verifier },
        telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider },
      },
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
  });

  afterAll(async () => {
    await fixture?.close();
    await memory?.shutdown();
  });

  it('counts a request without a token as auth, on Streamable HTTP, legacy HTTP+SSE and the WebSocket upgrade', async () => {
    await expectOneRefusal(memory, 'auth', 'streamable-http', async () => {
      expect((await rawPost(fixture.endpoint, rpc('ping'))).status).toBe(401);
    });
    await expectOneRefusal(memory, 'auth', 'sse', async () => {
      const refused = await wireRequest(`${fixture.origin}/sse`, {
        method: 'GET',
        headers: { accept: 'text/event-stream' },
      });
      expect(refused.status).toBe(401);
    });
    await expectOneRefusal(memory, 'auth', 'websocket', async () => {
      expect(await refusedUpgradeStatus(wsUrl(fixture.origin), {})).toBe(401);
    });
  });
});

describe('telemetry.metrics: false', () => {
  it('creates none of the library instruments', async () => {
    const memory = memoryTelemetry();
    const pipes = stdioPipes();
    const fixture = await startFixtureApp({
      mcp: {
        ws: {},
        sse: {},
        stdio: true,
        telemetry: { metrics: false, tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider },
      },
      overrides: [pipes.override],
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
    try {
      await pipes.initialize();
      await openSession(fixture.endpoint);
      expect((await rawPost(fixture.endpoint, '{not json')).status).toBe(400);

      expect([...(await memory.metrics()).keys()]).toEqual([]);
    } finally {
      pipes.end();
      await fixture.close();
      await memory.shutdown();
    }
  });
});
