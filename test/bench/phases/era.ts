/**
 * `tools/call echo` in both protocol eras: legacy (one `initialize`d session, as the echo phase)
 * and modern (MCP 2026-07-28: no session, `_meta` envelope and request metadata headers on every
 * request), at each concurrency, with the server's CPU time per request (`process.cpuUsage()` in
 * the server, read over IPC around each load point). The bare `node:http` floor answers the
 * legacy form only (it ignores `_meta` anyway): it is the floor of both.
 *
 * The official SDK v2 serves 2025-era traffic through its stateless fallback (no session, an
 * SSE answer); tmcp answers both eras with SSE. Answers are parsed as JSON or SSE.
 */
import { BenchHttp, parseAnswer } from '../client/http.js';
import { runLoad, type LoadRequest, type LoadResult } from '../client/load.js';
import { modernEchoRequest, modernHeaders } from '../client/modern.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { Era, EraPoint, EraResult } from '../types.js';
import { echoRequest, legacyEchoHeaders } from './echo.js';

/** The eras a server of the era phase is measured in (the floor: legacy only, it ignores `_meta`). */
export const erasOf = (kind: ServerKind): readonly Era[] => (kind === 'node-floor' ? ['legacy'] : ['legacy', 'modern']);

interface Cpu {
  user: number;
  system: number;
}

const cpuOf = async (server: ServerProcess): Promise<number> => {
  const { cpu } = await server.command<{ cpu: Cpu }>('cpu');
  return cpu.user + cpu.system;
};

export async function runEra(
  config: BenchConfig,
  kind: ServerKind,
  eras: readonly Era[],
  log: (line: string) => void,
): Promise<EraResult[]> {
  const results: EraResult[] = eras.map((era) => ({ server: kind, era, points: [] }));
  const server = await ServerProcess.start(kind);
  const http = new BenchHttp(server.endpoint, 4);
  let seq = 1_000;
  try {
    for (const result of results) {
      try {
        let headers: Record<string, string>;
        let build: () => LoadRequest;
        if (result.era === 'modern') {
          headers = modernHeaders('tools/call', 'echo');
          build = () => modernEchoRequest(++seq);
        } else {
          headers = await legacyEchoHeaders(http, kind);
          build = () => echoRequest(++seq);
        }
        const load = (concurrency: number, durationS: number): Promise<LoadResult> =>
          runLoad({
            url: server.endpoint,
            headers,
            concurrency,
            durationS,
            amount: config.requestsPerPoint,
            build,
            parse: parseAnswer,
          });
        result.warmup = await load(16, config.warmupS);
        for (const concurrency of config.concurrency) {
          const before = await cpuOf(server);
          const point: EraPoint = await load(concurrency, config.eraDurationS);
          const used = (await cpuOf(server)) - before;
          point.cpuUsPerRequest = used / Math.max(1, point.ok + point.errors);
          result.points.push(point);
          log(
            `  ${result.era} ${kind} c=${concurrency}: ${point.rps.toFixed(0)} req/s, p50 ${point.p50Ms.toFixed(2)} ms, p99 ${point.p99Ms.toFixed(2)} ms, server CPU ${point.cpuUsPerRequest.toFixed(1)} µs/request, errors ${point.errors}${point.firstError ? ` (${point.firstError})` : ''}`,
          );
        }
      } catch (error) {
        result.error = (error as Error).message;
        log(`  ${result.era} ${kind}: FAILED ${result.error}\n${server.log}`);
      }
    }
  } finally {
    http.close();
    await server.stop();
  }
  return results;
}
