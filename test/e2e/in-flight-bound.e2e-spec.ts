/**
 * "WebSocket back-pressure and concurrency": a connection-oriented transport runs at
 * most `maxInFlightRequests` requests at once; past it a request is refused at once with
 * `-32004` for its own id, and the running ones are answered when they finish.
 */
import { WsAdapter } from '@nestjs/platform-ws';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { GateTools } from '../fixtures/gate.tools.js';
import { Gates } from '../fixtures/gates.js';
import { within } from '../support/http-wire.js';
import { memoryTelemetry, type MemoryTelemetry } from '../support/otel-memory.js';
import { stdioPipes, type StdioPipes } from '../support/stdio-pipes.js';
import { openDriver, type McpDriver, type TransportKind } from '../support/transport-drivers.js';

const LIMIT = 3;
const EXTRA = 2;

/** Resolves with the first `count` values among `promises`, in the order they resolve. */
function firstResolved<T>(promises: Promise<T>[], count: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const values: T[] = [];
    for (const promise of promises) {
      promise.then((value) => {
        values.push(value);
        if (values.length === count) resolve([...values]);
      }, reject);
    }
  });
}

const byNumber = (a: number, b: number) => a - b;

let nextId = 1;

describe(`maxInFlightRequests: ${LIMIT}`, () => {
  let fixture: FixtureApp;
  let pipes: StdioPipes;
  let gates: Gates;
  let memory: MemoryTelemetry;

  beforeAll(async () => {
    pipes = stdioPipes();
    memory = memoryTelemetry();
    fixture = await startFixtureApp({
      providers: [Gates, GateTools],
      mcp: {
        limits: { maxInFlightRequests: LIMIT },
        ws: {},
        sse: {},
        stdio: true,
        telemetry: { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider },
      },
      overrides: [pipes.override],
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
    gates = fixture.app.get(Gates);
  });

  afterAll(async () => {
    gates.openAll();
    pipes.end();
    await fixture.close();
    await memory.shutdown();
  });

  describe.each<TransportKind>(['websocket', 'stdio', 'legacy-sse'])('over %s', (kind) => {
    let driver: McpDriver;

    beforeAll(async () => {
      driver = await openDriver(kind, fixture, pipes);
    });
    afterAll(() => driver.close());

    it(`runs ${LIMIT}, refuses the ${EXTRA} past them with -32004 for their ids, answers the rest after release`, async () => {
      const gate = gates.gate(kind);
      const ids = Array.from({ length: LIMIT + EXTRA }, () => nextId++);
      const answers = ids.map((id) =>
        driver.request(id, 'tools/call', { name: 'wait_at_gate', arguments: { gate: kind } }),
      );

      await gate.whenArrived(LIMIT);
      const refused = await within(firstResolved(answers, EXTRA), 3_000, `${EXTRA} refusals past the limit`);
      for (const answer of refused) {
        expect(answer).toEqual({
          jsonrpc: '2.0',
          id: expect.any(Number),
          error: {
            code: -32004,
            message: 'Too many requests in flight',
            data: {
              limit: LIMIT,
              detail: `At most ${LIMIT} requests may run at once on one connection; wait for answers before sending more`,
            },
          },
        });
      }
      const refusedIds = refused.map((answer) => answer.id as number);
      // WebSocket frames and stdio lines arrive in order: the last ones are refused.
      if (kind !== 'legacy-sse') expect(refusedIds.sort(byNumber)).toEqual(ids.slice(LIMIT));
      // Each refusal has its SERVER span with the error, as every request the server answers does.
      for (const id of refusedIds) {
        const spans = memory
          .spans()
          .filter(
            (span) => span.attributes['jsonrpc.request.id'] === String(id) && span.name === 'tools/call wait_at_gate',
          );
        expect(spans.map((span) => span.attributes['error.type'])).toEqual(['-32004']);
      }

      gate.open();
      const all = await Promise.all(answers);
      const served = all.filter((answer) => !refusedIds.includes(answer.id));
      expect(served.map((answer) => answer.id).sort(byNumber)).toEqual(
        ids.filter((id) => !refusedIds.includes(id)).sort(byNumber),
      );
      for (const answer of served) expect(answer.result.content).toEqual([{ type: 'text', text: `passed ${kind}` }]);
      expect(gate.arrived).toBe(LIMIT);

      // The places are free again: a full round runs without a refusal.
      const again = await Promise.all(
        Array.from({ length: LIMIT }, () => {
          const id = nextId++;
          return driver.request(id, 'tools/call', { name: 'wait_at_gate', arguments: { gate: kind } });
        }),
      );
      for (const answer of again) expect(answer.result.content).toEqual([{ type: 'text', text: `passed ${kind}` }]);
    });
  });
});
