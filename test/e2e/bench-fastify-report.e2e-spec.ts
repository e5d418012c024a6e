/**
 * The Fastify phase's report (test/bench/report/fastify-report.ts) on a made-up result: the
 * official SDK v2 on Fastify is a peer column of the table (its `tools/call` rows, empty cells in
 * the session fan-out rows it cannot run, its `subscriptions/listen` fan-out rows) and only ever
 * informational among the targets. No server is started: the report is a pure function of the
 * phase's result.
 */
import type { LoadResult } from '../bench/client/load.js';
import { evaluateFastifyTargets, fastifyTable } from '../bench/report/fastify-report.js';
import type { FanoutResult, FastifyResult, ListenFanoutResult } from '../bench/types.js';

const point = (rps: number): LoadResult => ({
  concurrency: 16,
  durationS: 5,
  ok: rps * 5,
  errors: 0,
  rps,
  p50Ms: 16_000 / rps,
  p99Ms: 40_000 / rps,
  meanMs: 16_000 / rps,
});

const listen = (server: ListenFanoutResult['server'], fanoutMs: number, serverCpuMs: number): ListenFanoutResult => ({
  server,
  n: 1_000,
  rounds: 7,
  fanoutMs,
  serverCpuMs,
  delivered: 1_000,
  missing: 0,
  duplicates: 0,
  unexpected: 0,
  errors: 0,
});

const fanout = (server: FanoutResult['server'], fanoutMs: number, cpuPerBumpUs: number): FanoutResult => ({
  server,
  n: 1_000,
  unsubscribed: 1_000,
  rounds: 7,
  fanoutMs,
  cpuPerBumpUs,
  errors: 0,
});

function result(): FastifyResult {
  return {
    echo: {
      best: {
        'nest-floor-fastify': point(4_000),
        'library-fastify': point(3_600),
        library: point(3_000),
        'library-direct-fastify': point(4_200),
        'library-direct': point(4_000),
        'sdk-v2-fastify': point(1_200),
      },
      rounds: [],
      cpuRounds: [],
      cpuMedian: {
        'nest-floor-fastify': 200,
        'library-fastify': 240,
        library: 300,
        'library-direct-fastify': 180,
        'library-direct': 190,
        'sdk-v2-fastify': 720,
      },
      errors: 0,
    },
    fanout: [
      fanout('library-fastify', 10, 8_000),
      fanout('library', 10, 8_000),
      fanout('library-direct-fastify', 9, 7_000),
      fanout('library-direct', 9, 7_000),
    ],
    listen: [
      listen('library-fastify', 12, 9),
      listen('library-direct-fastify', 10, 8),
      listen('sdk-v2-fastify', 40, 30),
    ],
    errors: 0,
  };
}

describe('the Fastify phase report, with the official SDK v2 on Fastify as a peer', () => {
  it('gives the SDK on Fastify a column: tools/call and listen fan-out figures, no session fan-out', () => {
    const table = fastifyTable(result())!;
    const sdk = table.columns.indexOf('official SDK v2 on Fastify');
    expect(sdk).toBe(table.columns.length - 1);
    const row = (prefix: string) => table.rows.find((r) => r.metric.startsWith(prefix))!;
    expect(row('tools/call c=16 (best').values[sdk]).toBe(1_200);
    expect(row('tools/call c=16 server CPU').values[sdk]).toBe(720);
    expect(row('fan-out N=1000: bump').values[sdk]).toBeUndefined();
    const listenTime = row('subscriptions/listen fan-out N=1000: notify');
    expect(listenTime.metric).toContain('median of 7 rounds');
    // Columns: floor, controller on Fastify, on Express, direct on Fastify, on Express, SDK.
    expect(listenTime.values).toEqual([undefined, 12, undefined, 10, undefined, 40]);
    expect(row('subscriptions/listen fan-out N=1000: server CPU').values).toEqual([
      undefined,
      9,
      undefined,
      8,
      undefined,
      30,
    ]);
  });

  it('compares each mount on Fastify with the SDK on Fastify for information only', () => {
    const targets = evaluateFastifyTargets(result());
    const byId = new Map(targets.map((t) => [t.id, t]));
    for (const id of [
      'fastify-echo-c16-vs-sdk',
      'fastify-echo-c16-vs-sdk-direct',
      'fastify-cpu-vs-sdk',
      'fastify-cpu-vs-sdk-direct',
      'fastify-listen-vs-sdk',
      'fastify-listen-vs-sdk-direct',
    ]) {
      expect(byId.get(id)).toMatchObject({ informational: true, threshold: 'informational', pass: null });
    }
    expect(byId.get('fastify-echo-c16-vs-sdk')!.value).toBeCloseTo(3);
    expect(byId.get('fastify-cpu-vs-sdk-direct')!.value).toBeCloseTo(0.25);
    expect(byId.get('fastify-listen-vs-sdk')!.value).toBeCloseTo(0.3);
    // The SDK is never the subject of a target: every target is one of the library's mounts.
    expect(targets.every((t) => t.server !== 'sdk-v2-fastify')).toBe(true);
  });

  it('reports n/a against the SDK when its runs failed or are missing', () => {
    const failed = result();
    failed.echo!.best['sdk-v2-fastify'] = { ...point(1_200), errors: 3 };
    failed.listen = failed.listen!.filter((l) => l.server !== 'sdk-v2-fastify');
    const targets = evaluateFastifyTargets(failed);
    expect(targets.find((t) => t.id === 'fastify-echo-c16-vs-sdk')).toMatchObject({ value: undefined, detail: 'n/a' });
    expect(targets.find((t) => t.id === 'fastify-listen-vs-sdk-direct')).toMatchObject({
      value: undefined,
      detail: 'n/a',
    });
    const table = fastifyTable(failed)!;
    const listenRow = table.rows.find((r) => r.metric.startsWith('subscriptions/listen fan-out N=1000: notify'))!;
    expect(listenRow.values.at(-1)).toBeUndefined();
  });
});
