import { describe, expect, it } from '@jest/globals';
import { ExportHealth } from './export-health.js';

/** An exporter whose results the test chooses, one per export. */
class ScriptedExporter {
  constructor(private readonly results: number[]) {}
  readonly temporality = 'cumulative';
  export(_items: unknown, done: (result: { code: number; error?: Error }) => void): void {
    const code = this.results.shift() ?? 0;
    done(code === 0 ? { code } : { code, error: new Error('connect ECONNREFUSED 127.0.0.1:9') });
  }
  selectTemporality(): string {
    return this.temporality;
  }
}

function logged() {
  const lines: string[] = [];
  return {
    lines,
    log: { warn: (line: string) => lines.push(`warn ${line}`), log: (line: string) => lines.push(`log ${line}`) },
  };
}

describe('ExportHealth', () => {
  it('says once that exports fail, and once that they succeed again, however many exports', async () => {
    const { lines, log } = logged();
    const health = new ExportHealth(log, 'http://127.0.0.1:9');
    const exporter = health.observe(new ScriptedExporter([1, 1, 1, 0, 0, 1]), 'traces');
    const results: number[] = [];
    for (let i = 0; i < 6; i++) exporter.export([], (result) => results.push(result.code));

    // Every result still reaches the SDK.
    expect(results).toEqual([1, 1, 1, 0, 0, 1]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^warn OpenTelemetry exports to http:\/\/127\.0\.0\.1:9 fail \(traces: connect ECONNREFUSED/,
      ),
      'log OpenTelemetry exports to http://127.0.0.1:9 succeed again',
      expect.stringMatching(/^warn .* fail/),
    ]);
    expect(health.isFailing).toBe(true);
  });

  it('says nothing while exports succeed, and leaves the rest of the exporter alone', () => {
    const { lines, log } = logged();
    const health = new ExportHealth(log, 'the collector');
    const exporter = health.observe(new ScriptedExporter([0, 0]), 'metrics');
    exporter.export([], () => undefined);
    exporter.export([], () => undefined);

    expect(lines).toEqual([]);
    expect(health.isFailing).toBe(false);
    expect(exporter.selectTemporality()).toBe('cumulative');
    expect(exporter.temporality).toBe('cumulative');
  });
});

describe('ExportHealth.stalled (when the shutdown stops waiting for the flush)', () => {
  it('is true once an export has gone unanswered for the given time, or the last one failed', () => {
    let now = 0;
    const health = new ExportHealth(logged().log, 'the collector', () => now);
    let answer: ((result: { code: number }) => void) | undefined;
    const hanging = health.observe(
      { export: (_items: unknown, done: (result: { code: number }) => void) => (answer = done) },
      'traces',
    );

    expect(health.stalled(1_000)).toBe(false);
    hanging.export([], () => undefined);
    now = 999;
    expect(health.stalled(1_000)).toBe(false);
    now = 1_000;
    expect(health.stalled(1_000)).toBe(true);
    answer!({ code: 0 });
    expect(health.stalled(1_000)).toBe(false);
    hanging.export([], () => undefined);
    answer!({ code: 1 });
    expect(health.stalled(1_000)).toBe(true);
  });
});
