/**
 * RSS per idle session: sessions that initialized and then did nothing (no stream), measured
 * after a forced GC in the server (over IPC), then again after every session was deleted
 * (DELETE /mcp). Each size runs on a fresh server whose baseline is taken after a warm-up that
 * opened the client's whole connection pool, so the connections' memory is in the baseline.
 */
import { BenchHttp, deleteSession, inPool, openSession, type McpSession } from '../client/http.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { MemoryPoint, MemoryResult } from '../types.js';

async function measure(
  config: BenchConfig,
  kind: ServerKind,
  n: number,
): Promise<{ point: MemoryPoint; errors: number }> {
  const server = await ServerProcess.start(kind);
  const http = new BenchHttp(server.endpoint, config.setupConcurrency);
  let errors = 0;
  try {
    const warm = config.smoke ? 4 : 4 * config.setupConcurrency;
    await inPool(warm, config.setupConcurrency, async () => deleteSession(http, await openSession(http)));
    const baseline = await server.memoryAfterGc();
    const sessions: McpSession[] = new Array(n);
    await inPool(n, config.setupConcurrency, async (i) => {
      sessions[i] = await openSession(http);
    });
    const loaded = await server.memoryAfterGc();
    const stats = await server.command<{ sessions: number }>('stats');
    if (stats.sessions !== n) errors++;
    await inPool(n, config.setupConcurrency, (i) => deleteSession(http, sessions[i]));
    const after = await server.memoryAfterGc();
    const statsAfter = await server.command<{ sessions: number }>('stats');
    if (statsAfter.sessions !== 0) errors++;
    return {
      errors,
      point: {
        n,
        baselineRss: baseline.rss,
        baselineHeapUsed: baseline.heapUsed,
        rss: loaded.rss,
        heapUsed: loaded.heapUsed,
        perSessionBytes: (loaded.rss - baseline.rss) / n,
        heapPerSessionBytes: (loaded.heapUsed - baseline.heapUsed) / n,
        afterDeleteRss: after.rss,
        afterDeleteVsBaseline: after.rss / baseline.rss - 1,
        afterDeleteHeapPerSessionBytes: (after.heapUsed - baseline.heapUsed) / n,
        sessionsReported: stats.sessions,
        sessionsAfterDelete: statsAfter.sessions,
      },
    };
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${server.log}`);
  } finally {
    http.close();
    await server.stop();
  }
}

export async function runMemory(
  config: BenchConfig,
  kind: ServerKind,
  log: (line: string) => void,
): Promise<MemoryResult> {
  const result: MemoryResult = { server: kind, points: [], errors: 0 };
  for (const n of [...config.memoryN].sort((a, b) => a - b)) {
    try {
      const { point, errors } = await measure(config, kind, n);
      result.points.push(point);
      result.errors += errors;
      result.baselineRss ??= point.baselineRss;
      result.baselineHeapUsed ??= point.baselineHeapUsed;
      log(
        `  memory ${kind} n=${n}: ${(point.perSessionBytes / 1024).toFixed(1)} KB RSS/session (heap ${(point.heapPerSessionBytes / 1024).toFixed(1)} KB); after delete RSS ${(point.afterDeleteVsBaseline * 100).toFixed(1)}% vs baseline ${(point.baselineRss / 2 ** 20).toFixed(1)} MiB, heap left ${(point.afterDeleteHeapPerSessionBytes / 1024).toFixed(2)} KB/session; sessions ${point.sessionsReported} -> ${point.sessionsAfterDelete}`,
      );
    } catch (error) {
      result.error = (error as Error).message;
      result.errors++;
      log(`  memory ${kind} n=${n}: FAILED ${result.error}`);
    }
  }
  return result;
}
