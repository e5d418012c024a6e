/**
 * The measuring loop shared by the listen and Redis fan-outs (streams that start with no update):
 * `rounds` notifications of `mem://counter`, one at a time, each triggered over IPC in the server (its
 * `notifyResourceUpdated`), each timed from that call to the last watched stream holding it.
 *
 * The server stamps the call with its monotonic clock (`process.hrtime`, the same clock in every
 * process on the machine); the bench converts it to its own `performance.now()` time line, on
 * which the stream client stamps arrivals. The servers' CPU time (`process.cpuUsage()` over IPC)
 * is read before the call and once every stream holds the update: the work of one notification,
 * apart from the bench client's own share of the two cores.
 *
 * `warmup` rounds run first, the same way, and are dropped: a fresh deployment's first
 * notifications run cold code and cold connections (on a Redis Cluster the first rounds took
 * up to 2.5× the later ones), so a comparison drops the same number on every side.
 */
import { performance } from 'node:perf_hooks';
import { percentile } from '../client/load.js';
import type { ServerProcess } from '../client/server-process.js';
import type { StreamSet, WatchedStream } from '../client/sse.js';
import { COUNTER_URI } from '../servers/fixture-spec.js';

export interface RoundsSummary {
  rounds: number;
  roundsMs: number[];
  fanoutMs?: number;
  p50ArrivalMs?: number;
  /** CPU time the servers used from just before the call until every stream held it (median round), in ms. */
  serverCpuMs?: number;
  /** That CPU time per measured round, in ms. */
  roundsCpuMs?: number[];
  /** Rounds run before the measured ones and dropped. */
  warmupRounds?: number;
}

/** Hooks run around each round (the Redis phase reads INFO commandstats there). */
export interface RoundHooks {
  before?(round: number): Promise<void>;
  /** After every watched stream holds the round's update. */
  after?(round: number): Promise<void>;
}

/** The bench's `performance.now()` for a server's `process.hrtime` reading in ns. */
function toLocalMs(atNs: string): number {
  const offsetMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  return Number(BigInt(atNs)) / 1e6 - offsetMs;
}

export async function notifyRounds(
  notifier: ServerProcess,
  set: StreamSet,
  watched: WatchedStream[],
  rounds: number,
  waitMs: number,
  hooks: RoundHooks = {},
  servers: ServerProcess[] = [notifier],
  warmup = 0,
): Promise<{ summary: RoundsSummary; complete: boolean }> {
  const n = watched.length;
  const times: Array<{ ms: number; p50: number }> = [];
  const cpuMs: number[] = [];
  const cpu = async () => {
    let total = 0;
    for (const server of servers) {
      const { cpu: used } = await server.command<{ cpu: { user: number; system: number } }>('cpu');
      total += used.user + used.system;
    }
    return total / 1_000;
  };
  let complete = true;
  for (let round = 1; round <= warmup + rounds; round++) {
    const measured = round > warmup;
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (measured) await hooks.before?.(round - warmup);
    const cpuBefore = await cpu();
    const { atNs } = await notifier.command<{ atNs: string }>('notify', { uri: COUNTER_URI });
    const sent = toLocalMs(atNs);
    const arrived = await set.waitUntil(() => (set.streamsWith[round] ?? 0) >= n, waitMs);
    if (!arrived) {
      complete = false;
      break;
    }
    if (!measured) continue;
    cpuMs.push((await cpu()) - cpuBefore);
    await hooks.after?.(round - warmup);
    const arrivals = watched
      .map((s) => s.counters.updatedAt[round - 1])
      .filter((t): t is number => t !== undefined)
      .map((t) => t - sent)
      .sort((a, b) => a - b);
    times.push({ ms: arrivals[arrivals.length - 1], p50: percentile(arrivals, 50) });
  }
  const summary: RoundsSummary = {
    rounds,
    roundsMs: times.map((t) => t.ms),
    roundsCpuMs: cpuMs,
    ...(warmup > 0 ? { warmupRounds: warmup } : {}),
  };
  if (complete && times.length === rounds) {
    const median = [...times].sort((a, b) => a.ms - b.ms)[Math.floor(rounds / 2)];
    summary.fanoutMs = median.ms;
    summary.p50ArrivalMs = median.p50;
    summary.serverCpuMs = [...cpuMs].sort((a, b) => a - b)[Math.floor(cpuMs.length / 2)];
  }
  return { summary, complete };
}
