/**
 * `tools/call echo` on one session: throughput and p50/p99 latency at each concurrency. Answers
 * are parsed as JSON or as an SSE stream's last message (tmcp answers a POST with SSE).
 */
import { BenchHttp, openSession, parseAnswer } from '../client/http.js';
import { runLoad, type LoadRequest } from '../client/load.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import type { BenchConfig } from '../config.js';
import type { EchoResult } from '../types.js';

/** An echo call whose answer must carry its id and its text back. */
export function echoRequest(id: number): LoadRequest {
  const text = `t${id}`;
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } }),
    check: (json) =>
      json?.jsonrpc === '2.0' &&
      json.id === id &&
      json.result?.isError !== true &&
      json.result?.content?.length === 1 &&
      json.result.content[0].type === 'text' &&
      json.result.content[0].text === text,
  };
}

export async function runEcho(config: BenchConfig, kind: ServerKind, log: (line: string) => void): Promise<EchoResult> {
  const result: EchoResult = { server: kind, points: [] };
  const server = await ServerProcess.start(kind);
  const http = new BenchHttp(server.endpoint, 4);
  try {
    const session = await openSession(http);
    let seq = 1_000;
    const build = () => echoRequest(++seq);
    result.warmup = await runLoad({
      url: server.endpoint,
      headers: session.headers,
      concurrency: 16,
      durationS: config.warmupS,
      amount: config.requestsPerPoint,
      build,
      parse: parseAnswer,
    });
    for (const concurrency of config.concurrency) {
      const point = await runLoad({
        url: server.endpoint,
        headers: session.headers,
        concurrency,
        durationS: config.durationS,
        amount: config.requestsPerPoint,
        build,
        parse: parseAnswer,
      });
      result.points.push(point);
      log(
        `  echo ${kind} c=${concurrency}: ${point.rps.toFixed(0)} req/s, p50 ${point.p50Ms.toFixed(2)} ms, p99 ${point.p99Ms.toFixed(2)} ms, errors ${point.errors}${point.firstError ? ` (${point.firstError})` : ''}`,
      );
    }
  } catch (error) {
    result.error = (error as Error).message;
    log(`  echo ${kind}: FAILED ${result.error}\n${server.log}`);
  } finally {
    http.close();
    await server.stop();
  }
  return result;
}
