import type { IncomingMessage, Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/** A full garbage collection, without starting Jest with `--expose-gc`. */
function fullGc(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    // A fresh context is created with the flag on, so its global has gc().
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/** Live bytes after a full collection: the V8 heap plus Buffer memory. */
function liveBytes(): number {
  fullGc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/**
 * Resolves once the server holds no connection (bounded by `timeoutMs`): the uploads of an
 * earlier test may still be draining, and their chunks would count against a new baseline.
 */
export async function untilNoConnections(server: Server, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<number>((resolve, reject) =>
      server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
    if (open === 0) return;
    if (Date.now() > deadline) throw new Error(`the server still holds ${open} connection(s) after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface RequestMemoryProbe {
  /** Bytes alive beyond the baseline at the end of each request, in the order they ended. */
  readonly samples: number[];
  /** Resolves once `count` requests have ended (their bodies may end after their answers). */
  sampled(count: number): Promise<number[]>;
  stop(): void;
}

/**
 * Watches the requests of an in-process HTTP server and measures, at the moment each request
 * body ends, how many bytes more are alive than when the probe started. The sample is taken
 * before any other 'end' listener runs, so a reader that kept the body would still hold it.
 */
export function probeRequestMemory(server: Server): RequestMemoryProbe {
  const samples: number[] = [];
  const waiters = new Set<() => void>();
  const baseline = liveBytes();
  const onRequest = (req: IncomingMessage): void => {
    let sampled = false;
    const sample = (): void => {
      if (sampled) return;
      sampled = true;
      samples.push(liveBytes() - baseline);
      for (const wake of waiters) wake();
    };
    req.prependOnceListener('end', sample);
    req.prependOnceListener('close', sample);
  };
  server.prependListener('request', onRequest);
  return {
    samples,
    sampled(count) {
      return new Promise<number[]>((resolve) => {
        const wake = (): void => {
          if (samples.length < count) return;
          waiters.delete(wake);
          resolve(samples.slice());
        };
        waiters.add(wake);
        wake();
      });
    },
    stop: () => void server.off('request', onRequest),
  };
}
