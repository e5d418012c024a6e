/**
 * `resources/list` full page walk and `resources/read` throughput with many runtime resources
 * registered (`BENCH_RESOURCES` at server start).
 */
import { BenchHttp, openSession, rpc } from '../client/http.js';
import { runLoad } from '../client/load.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import { COUNTER_URI, resourceText, resourceUri } from '../servers/fixture-spec.js';
import type { ResourcesResult } from '../types.js';
import { performance } from 'node:perf_hooks';

const MAX_WALKS = 50;

export async function runResources(
  config: BenchConfig,
  kind: ServerKind,
  log: (line: string) => void,
): Promise<ResourcesResult> {
  const count = config.resourcesN;
  const result: ResourcesResult = { server: kind, count, errors: 0 };
  const server = await ServerProcess.start(kind, { env: { BENCH_RESOURCES: String(count) } });
  const http = new BenchHttp(server.endpoint, 4);
  try {
    if (typeof server.ready.registerMs === 'number') result.registerMs = server.ready.registerMs;
    const session = await openSession(http);
    const expected = new Set<string>([COUNTER_URI]);
    for (let i = 0; i < count; i++) expected.add(resourceUri(i));

    const times: number[] = [];
    let pages = 0;
    let duplicates = 0;
    let missing = 0;
    const deadline = performance.now() + config.durationS * 1_000;
    while (times.length < MAX_WALKS && (times.length < 2 || performance.now() < deadline)) {
      const seen = new Set<string>();
      let cursor: string | undefined;
      let walkPages = 0;
      const start = performance.now();
      do {
        const page = await rpc(http, session, 'resources/list', cursor === undefined ? {} : { cursor });
        walkPages++;
        for (const resource of page.resources ?? []) {
          if (seen.has(resource.uri)) duplicates++;
          seen.add(resource.uri);
        }
        cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
      } while (cursor !== undefined && walkPages <= count + 10);
      times.push(performance.now() - start);
      pages = walkPages;
      for (const uri of expected) if (!seen.has(uri)) missing++;
    }
    times.sort((a, b) => a - b);
    const items = expected.size;
    result.walk = {
      walks: times.length,
      pages,
      items,
      msPerWalk: times[Math.floor(times.length / 2)],
      duplicates,
      missing,
    };
    result.errors += duplicates + missing;
    log(
      `  resources ${kind}: list walk of ${items} in ${pages} pages: ${result.walk.msPerWalk.toFixed(1)} ms (median of ${times.length}); duplicates ${duplicates}, missing ${missing}`,
    );

    let seq = 0;
    result.read = await runLoad({
      url: server.endpoint,
      headers: session.headers,
      concurrency: 16,
      durationS: config.durationS,
      amount: config.requestsPerPoint,
      build: () => {
        const id = ++seq + 1_000_000;
        const i = (seq * 7_919) % count;
        const uri = resourceUri(i);
        const text = resourceText(i);
        return {
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri } }),
          check: (json) =>
            json?.id === id &&
            json.result?.contents?.length === 1 &&
            json.result.contents[0].uri === uri &&
            json.result.contents[0].text === text,
        };
      },
    });
    result.errors += result.read.errors;
    log(
      `  resources ${kind}: read c=16 ${result.read.rps.toFixed(0)} req/s, p50 ${result.read.p50Ms.toFixed(2)} ms, p99 ${result.read.p99Ms.toFixed(2)} ms, errors ${result.read.errors}${result.read.firstError ? ` (${result.read.firstError})` : ''}`,
    );
  } catch (error) {
    result.error = (error as Error).message;
    result.errors++;
    log(`  resources ${kind}: FAILED ${result.error}\n${server.log}`);
  } finally {
    http.close();
    await server.stop();
  }
  return result;
}
