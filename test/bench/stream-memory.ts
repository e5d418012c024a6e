/**
 * Memory per session held with an open GET stream, on one server: `node
 * test/bench/results/.build/test/bench/stream-memory.js <kind> <n> [<n>...]` (kinds as in
 * client/server-process.ts: `library`, `library-direct`, `library-fastify`, ...). For each n, a
 * fresh server: RSS and heap after forced GC, n sessions each with its GET stream open, RSS and
 * heap after GC again; prints (after − before) ÷ n. The fan-out phase measures the same with its
 * subscriptions and rounds around it; this is the quick loop for that one figure.
 */
import { BenchHttp, inPool, openSession } from './client/http.js';
import { ServerProcess, type ServerKind } from './client/server-process.js';
import { StreamSet, type WatchedStream } from './client/sse.js';

const [kind, ...sizes] = process.argv.slice(2);
if (!kind || sizes.length === 0) throw new Error('usage: stream-memory.js <kind> <n> [<n>...]');

for (const n of sizes.map(Number)) {
  const server = await ServerProcess.start(kind as ServerKind);
  const http = new BenchHttp(server.endpoint, 32);
  const set = new StreamSet('mem://counter');
  const streams: WatchedStream[] = [];
  try {
    // Warm-up: code paths and the connection pool, then the baseline.
    await inPool(50, 32, async () => {
      streams.push(await set.open(server.endpoint, (await openSession(http)).headers));
    });
    const { memory: before, spaces: spacesBefore } = await server.memoryAndSpacesAfterGc();
    await inPool(n, 32, async () => {
      streams.push(await set.open(server.endpoint, (await openSession(http)).headers));
    });
    const { memory: after, spaces: spacesAfter } = await server.memoryAndSpacesAfterGc();
    const kb = (bytes: number) => (bytes / n / 1024).toFixed(1);
    console.log(
      `${kind} n=${n}: RSS ${kb(after.rss - before.rss)} KB/stream session, heap ${kb(after.heapUsed - before.heapUsed)} KB (committed ${kb(after.heapTotal - before.heapTotal)} KB), external ${kb(after.external - before.external)} KB`,
    );
    for (const [name, space] of Object.entries(spacesAfter)) {
      const was = spacesBefore[name] ?? { committed: 0, used: 0 };
      console.log(
        `  ${name}: committed ${kb(space.committed - was.committed)} KB, used ${kb(space.used - was.used)} KB`,
      );
    }
  } finally {
    for (const stream of streams) stream.close();
    http.agent.destroy();
    await server.stop();
  }
}
