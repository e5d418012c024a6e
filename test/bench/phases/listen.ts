/**
 * `subscriptions/listen` fan-out (MCP 2026-07-28): n modern listens on `mem://counter`, each a
 * POST whose answer stream stays open (one connection each). Every listen must be acknowledged
 * first; then, one at a time, the server is told over IPC to call its `notifyResourceUpdated`
 * (the library's `ResourceNotificationService`, the SDK v2's `handler.notify.resourceUpdated`),
 * and the time runs from that call (the server's monotonic clock, which every process on the
 * machine shares) to the last listen holding the update. The median of the rounds is reported
 * (the first runs cold code). After the last round each listen must hold exactly `rounds`
 * updates.
 */
import { performance } from 'node:perf_hooks';
import { inPool } from '../client/http.js';
import { listenBody, modernHeaders } from '../client/modern.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import { StreamSet, type WatchedStream } from '../client/sse.js';
import type { BenchConfig } from '../config.js';
import { COUNTER_URI } from '../servers/fixture-spec.js';
import type { ListenFanoutResult } from '../types.js';
import { notifyRounds } from './notify-rounds.js';

export const LISTEN_SERVERS: readonly ServerKind[] = ['library', 'library-direct', 'sdk-v2'];

const WAIT_MS = 120_000;

export async function runListenFanout(
  config: BenchConfig,
  kind: ServerKind,
  requested: number,
  log: (line: string) => void,
): Promise<ListenFanoutResult> {
  const n = Math.min(requested, config.fdLimit - config.fdReserve);
  const result: ListenFanoutResult = { server: kind, n, errors: 0 };
  const server = await ServerProcess.start(kind);
  const set = new StreamSet(COUNTER_URI);
  const listens: WatchedStream[] = new Array(n);
  let stage = 'starting';
  try {
    const headers = modernHeaders('subscriptions/listen');
    stage = `opening ${n} listens`;
    const setupStart = performance.now();
    await inPool(n, config.setupConcurrency, async (i) => {
      listens[i] = await set.open(server.endpoint, headers, 30_000, listenBody(i + 1, [COUNTER_URI]));
    });
    if (!(await set.waitUntil(() => set.totalAcknowledged >= n, WAIT_MS))) {
      throw new Error(`only ${set.totalAcknowledged} of ${n} listens were acknowledged`);
    }
    result.setupMs = performance.now() - setupStart;
    stage = 'measuring';
    const rounds = await notifyRounds(server, set, listens, config.fanoutRounds, WAIT_MS);
    Object.assign(result, rounds.summary);
    // Let stray duplicates arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 200));
    result.delivered = listens.filter((s) => s.counters.updated === result.rounds).length;
    result.missing = listens.filter((s) => s.counters.updated < result.rounds!).length;
    result.duplicates = listens.filter((s) => s.counters.updated > result.rounds!).length;
    result.unexpected =
      listens.filter((s) => s.counters.acknowledged !== 1 || s.counters.otherUpdated > 0 || s.counters.unexpected > 0)
        .length + set.endedEarly;
    result.errors += result.missing + result.duplicates + result.unexpected + (rounds.complete ? 0 : 1);
    log(
      `  listen ${kind} N=${n}: ${result.fanoutMs?.toFixed(1) ?? 'TIMEOUT'} ms to all (median of ${result.rounds}: ${result.roundsMs?.map((t) => t.toFixed(1)).join(', ')}; p50 ${result.p50ArrivalMs?.toFixed(1)} ms; server CPU ${result.serverCpuMs?.toFixed(1)} ms); missing ${result.missing}, duplicates ${result.duplicates}, unexpected ${result.unexpected}; setup ${((result.setupMs ?? 0) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    result.error = `${(error as Error).message} (while ${stage}; ${set.streams.length} listens opened; ${set.totalAcknowledged} acknowledged)`;
    result.errors++;
    log(`  listen ${kind} N=${n}: FAILED ${result.error}\n${server.log}`);
  } finally {
    set.closeAll();
    await server.stop();
  }
  return result;
}
