/**
 * The control channel between the bench (parent) and a server under test (child), over Node's
 * IPC pipe: no port, no route, nothing a network client can reach. A server started without
 * IPC (`npm run start:bench-fixture` by hand) just prints its endpoint.
 *
 * Parent -> child: `{ id, cmd, ...args }`; child -> parent: `{ id, ok, ...result }` and one
 * `{ type: 'ready', port, ... }` when listening.
 */
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

export interface BenchHooks {
  /** Sends `notifications/resources/updated` for a URI, as the server's `bump` does. */
  notify(uri: string): unknown;
  /** Live sessions, as the server counts them. */
  sessionCount(): number | Promise<number>;
  /** Sessions that hold an open GET stream, as the server counts them. */
  streamCount?(): number | Promise<number>;
}

export interface ReadyInfo {
  port: number;
  /** Extra facts for the report (how long startup registrations took, ...). */
  [key: string]: unknown;
}

type Command =
  | { id: number; cmd: 'gc' }
  | { id: number; cmd: 'snapshot'; file: string }
  | { id: number; cmd: 'notify-none'; uri: string; iterations: number; batches: number }
  | { id: number; cmd: 'stats' }
  | { id: number; cmd: 'now' }
  | { id: number; cmd: 'cpu' }
  | { id: number; cmd: 'notify'; uri: string }
  | { id: number; cmd: 'exit' };

/** Runs `global.gc()` until RSS stops shrinking (at most 6 rounds), then reports memory. */
async function collect(): Promise<NodeJS.MemoryUsage> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('start the server with --expose-gc');
  let last = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 6; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rss = process.memoryUsage().rss;
    if (rss >= last * 0.995) break;
    last = rss;
  }
  return process.memoryUsage();
}

/** Committed and used bytes per V8 heap space, to tell live objects from what the heap keeps around them. */
function heapSpaces(): Record<string, { committed: number; used: number }> {
  const spaces: Record<string, { committed: number; used: number }> = {};
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = { committed: space.space_size, used: space.space_used_size };
  }
  return spaces;
}

/** Times `notify(uri)` for a URI nobody subscribed to: one warm-up batch, then the median ns per call over batches. */
async function notifyNone(hooks: BenchHooks, uri: string, iterations: number, batches: number) {
  for (let i = 0; i < iterations; i++) await hooks.notify(uri);
  const perCall: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await hooks.notify(uri);
    perCall.push(((performance.now() - start) * 1e6) / iterations);
  }
  perCall.sort((a, b) => a - b);
  return { nsPerCall: perCall[Math.floor(perCall.length / 2)], batches: perCall };
}

/** Announces readiness to the parent (or prints the endpoint) and serves the parent's commands. */
export function serveBenchIpc(info: ReadyInfo, hooks: BenchHooks, close: () => Promise<void>): void {
  if (!process.send) {
    console.log(`listening on http://127.0.0.1:${info.port}/mcp`);
    return;
  }
  process.on('message', (message: Command) => {
    void (async () => {
      try {
        switch (message.cmd) {
          case 'gc':
            return reply(message.id, { memory: await collect(), spaces: heapSpaces() });
          case 'snapshot':
            // A heap snapshot after a forced GC, for test/bench/stream-snapshot.ts.
            await collect();
            return reply(message.id, { file: writeHeapSnapshot(message.file) });
          case 'notify-none':
            return reply(message.id, await notifyNone(hooks, message.uri, message.iterations, message.batches));
          case 'stats':
            return reply(message.id, {
              sessions: await hooks.sessionCount(),
              streams: hooks.streamCount ? await hooks.streamCount() : undefined,
              memory: process.memoryUsage(),
              fds: openDescriptors(),
            });
          case 'now':
            // Same clock as the V8 CPU profile's timestamps (monotonic, microseconds).
            return reply(message.id, { us: Number(process.hrtime.bigint() / 1000n) });
          case 'cpu':
            // User + system CPU time of this process so far, in microseconds.
            return reply(message.id, { cpu: process.cpuUsage() });
          case 'notify': {
            // The monotonic clock (shared by every process on the machine) just before the call.
            const atNs = process.hrtime.bigint();
            const report = await hooks.notify(message.uri);
            return reply(message.id, { atNs: String(atNs), report: report ?? null });
          }
          case 'exit':
            reply(message.id, {});
            // process.exit() still writes a --cpu-prof profile; closing first ends sockets cleanly.
            await Promise.race([close().catch(() => undefined), new Promise((r) => setTimeout(r, 2_000))]);
            process.exit(0);
        }
      } catch (error) {
        process.send?.({ id: message.id, ok: false, error: (error as Error).message });
      }
    })();
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', ...info });
}

/** File descriptors this process holds (Linux: entries of /proc/self/fd), or undefined elsewhere. */
function openDescriptors(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

function reply(id: number, result: object): void {
  process.send?.({ id, ok: true, ...result });
}

/** `URLS` (first entry of a `;`-separated list), as the gateway reads it. */
export function listenAddress(defaultUrl: string): { host: string; port: number } {
  const first = (process.env.URLS ?? defaultUrl)
    .split(';')
    .map((s) => s.trim())
    .find(Boolean);
  const url = new URL(first ?? defaultUrl);
  return { host: url.hostname, port: Number(url.port || 80) };
}
