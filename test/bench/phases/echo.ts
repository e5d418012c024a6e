/**
 * `tools/call echo` on one session: throughput and p50/p99 latency at each concurrency. Answers
 * are parsed as JSON or as an SSE stream's last message (tmcp answers a POST with SSE).
 */
import { BenchHttp, openSession, parseAnswer } from '../client/http.js';
import { runLoad, type LoadRequest, type LoadResult } from '../client/load.js';
import { SESSIONLESS_LEGACY_KINDS, ServerProcess, type ServerKind } from '../client/server-process.js';
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

/** The round with the most answers per second (a round with any error loses). */
export function bestRound<T extends LoadResult>(points: readonly T[]): T {
  const score = (point: T) => (point.errors === 0 ? point.rps : -1);
  return points.reduce((best, point) => (score(point) > score(best) ? point : best));
}

/** Echo calls on one session of a started server. */
export interface EchoSession {
  /** One load point: `config.requestsPerPoint` calls (or `durationS` of them) at `concurrency`. */
  load(concurrency: number, durationS: number): Promise<LoadResult>;
  /** Closes the connections and stops the server. */
  close(): Promise<void>;
}

/**
 * The headers of `kind`'s legacy (2025-era) `tools/call`s: a session's, opened here, or none
 * for a server whose legacy era has no session (SESSIONLESS_LEGACY_KINDS: the SDK v2's stateless
 * fallback), which answers the same call without one.
 */
export async function legacyEchoHeaders(http: BenchHttp, kind: ServerKind): Promise<Record<string, string>> {
  return SESSIONLESS_LEGACY_KINDS.includes(kind) ? {} : (await openSession(http)).headers;
}

/**
 * Opens a session on `server` for echo loads, each call with an id of its own; the answers are
 * parsed as JSON or as an SSE stream's last message (the headers of `legacyEchoHeaders`). Stops
 * the server when the session cannot be opened.
 */
export async function echoSession(config: BenchConfig, server: ServerProcess): Promise<EchoSession> {
  const http = new BenchHttp(server.endpoint, 4);
  const close = async () => {
    http.close();
    await server.stop();
  };
  try {
    const headers = await legacyEchoHeaders(http, server.kind);
    let seq = 1_000;
    const load = (concurrency: number, durationS: number) =>
      runLoad({
        url: server.endpoint,
        headers,
        concurrency,
        durationS,
        amount: config.requestsPerPoint,
        build: () => echoRequest(++seq),
        parse: parseAnswer,
      });
    return { load, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export async function runEcho(config: BenchConfig, kind: ServerKind, log: (line: string) => void): Promise<EchoResult> {
  const result: EchoResult = { server: kind, points: [] };
  const server = await ServerProcess.start(kind);
  let echo: EchoSession | undefined;
  try {
    echo = await echoSession(config, server);
    result.warmup = await echo.load(16, config.warmupS);
    for (const concurrency of config.concurrency) {
      const point = await echo.load(concurrency, config.durationS);
      result.points.push(point);
      log(
        `  echo ${kind} c=${concurrency}: ${point.rps.toFixed(0)} req/s, p50 ${point.p50Ms.toFixed(2)} ms, p99 ${point.p99Ms.toFixed(2)} ms, errors ${point.errors}${point.firstError ? ` (${point.firstError})` : ''}`,
      );
    }
  } catch (error) {
    result.error = (error as Error).message;
    log(`  echo ${kind}: FAILED ${result.error}\n${server.log}`);
  } finally {
    // A session that could not be opened has stopped its server already.
    await echo?.close();
  }
  return result;
}
