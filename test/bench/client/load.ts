/**
 * Closed-loop load with autocannon (as a library): `concurrency` connections, one request in
 * flight on each, for a fixed duration or a fixed number of requests. Every response is checked
 * (`onResponse` gets its body); latencies are taken from autocannon's per-response timings at
 * full precision (its own histogram rounds to whole milliseconds).
 */
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { ACCEPT_BOTH } from './http.js';

export interface LoadRequest {
  body: string;
  /** True when the parsed JSON answer is exactly right for this request. */
  check: (json: any) => boolean;
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  concurrency: number;
  durationS: number;
  /** When set, exactly this many requests are sent and `durationS` is ignored. */
  amount?: number;
  /** Builds request number `seq` (unique across the run). */
  build: (seq: number) => LoadRequest;
  /** Turns an answer's body into the JSON to check (default `JSON.parse`; SSE answers need more). */
  parse?: (body: string) => unknown;
}

export interface LoadResult {
  concurrency: number;
  durationS: number;
  /** Responses that passed the check. */
  ok: number;
  /** Wrong answers, non-2xx, connection errors and timeouts. */
  errors: number;
  /** Checked responses per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** The first wrong answer, for the report. */
  firstError?: string;
}

export const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  let seq = 0;
  let ok = 0;
  let bad = 0;
  let firstError: string | undefined;
  const latencies: number[] = [];
  const fail = (why: string) => {
    bad++;
    firstError ??= why.slice(0, 300);
  };

  const parse = options.parse ?? JSON.parse;
  return new Promise((resolve, reject) => {
    // autocannon stops on its next sample tick: tick every 100 ms so short points end on time.
    const started = performance.now();
    const instance = autocannon(
      {
        url: options.url,
        connections: options.concurrency,
        pipelining: 1,
        duration: options.durationS,
        ...(options.amount === undefined ? {} : { amount: options.amount }),
        sampleInt: 100,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...options.headers },
            setupRequest: (req: any, context: any) => {
              const request = options.build(++seq);
              context.check = request.check;
              return { ...req, body: request.body };
            },
            onResponse: (status: number, body: string, context: any) => {
              if (status !== 200) return fail(`HTTP ${status}: ${String(body).slice(0, 200)}`);
              let json: unknown;
              try {
                json = parse(body);
              } catch {
                return fail(`not JSON: ${String(body).slice(0, 200)}`);
              }
              if (typeof context.check === 'function' && context.check(json)) ok++;
              else fail(`wrong answer: ${String(body).slice(0, 200)}`);
            },
          },
        ] as any,
      },
      (error: Error | null, result: any) => {
        if (error) return reject(error);
        const transportErrors = (result.errors ?? 0) + (result.timeouts ?? 0);
        if (transportErrors > 0) firstError ??= `${result.errors} connection errors, ${result.timeouts} timeouts`;
        latencies.sort((a, b) => a - b);
        const duration = (performance.now() - started) / 1_000;
        resolve({
          concurrency: options.concurrency,
          durationS: duration,
          ok,
          errors: bad + transportErrors,
          rps: ok / duration,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          meanMs: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
          firstError,
        });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime);
    });
  });
}
