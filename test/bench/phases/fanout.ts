/**
 * Fan-out: N sessions subscribed to `mem://counter`, each with an open GET stream, plus up to N
 * unsubscribed sessions with open streams; one `bump` at a time (BENCH_FANOUT_ROUNDS of them,
 * the median reported: the first one runs cold code); the time until every subscribed stream
 * holds the notification.
 *
 * Proof that no unsubscribed session got it: after the update, a `barrier` tool sends
 * `resources/list_changed` to every open stream. Delivery on one stream is ordered, so once
 * every stream has the barrier, an update sent to an unsubscribed session would already be on
 * its stream. A first barrier, before `bump`, proves every stream is attached and live.
 *
 * The `bump` answer's round trip is measured beside the time to all, and so is a plain `echo`'s
 * (ECHO_PER_ROUND calls on the same session just before each `bump`, with every stream open):
 * the notifying call should cost about what a plain call costs, the delivery running after its
 * answer.
 *
 * File descriptors: the client (this process) and the server each hold one socket per stream,
 * so sessions with streams are capped at `ulimit -n` minus a reserve; the unsubscribed set
 * shrinks first (documented in the result as `unsubscribed`).
 */
import { performance } from 'node:perf_hooks';
import { BenchHttp, callJsonTool, inPool, openSession, rpc, type McpSession } from '../client/http.js';
import { percentile } from '../client/load.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import { StreamSet, type WatchedStream } from '../client/sse.js';
import type { BenchConfig } from '../config.js';
import { COUNTER_URI, NOBODY_URI } from '../servers/fixture-spec.js';
import type { FanoutResult, NotifyCost } from '../types.js';

/** Sessions with a stream measured for the "no subscriber" baseline. */
const FEW = 10;
const WAIT_MS = 120_000;
/** Plain `echo` calls timed before each `bump`. */
const ECHO_PER_ROUND = 5;

/** One `tools/call echo` on the session; its round trip in ms (throws on a wrong answer). */
async function timedEcho(http: BenchHttp, session: McpSession, text: string): Promise<number> {
  const start = performance.now();
  const result = await rpc(http, session, 'tools/call', { name: 'echo', arguments: { text } });
  const ms = performance.now() - start;
  if (result?.isError || result?.content?.[0]?.text !== text)
    throw new Error(`echo answered ${JSON.stringify(result)}`);
  return ms;
}

export function fanoutSizes(config: BenchConfig, n: number): { n: number; unsubscribed: number } {
  const budget = config.fdLimit - config.fdReserve - config.setupConcurrency;
  const subscribed = Math.min(n, budget);
  return { n: subscribed, unsubscribed: Math.max(0, Math.min(n, budget - subscribed)) };
}

export async function runFanout(
  config: BenchConfig,
  kind: ServerKind,
  requestedN: number,
  log: (line: string) => void,
): Promise<FanoutResult> {
  const { n, unsubscribed } = fanoutSizes(config, requestedN);
  const result: FanoutResult = { server: kind, n, unsubscribed, errors: 0 };
  const server = await ServerProcess.start(kind);
  const http = new BenchHttp(server.endpoint, config.setupConcurrency);
  const set = new StreamSet(COUNTER_URI);
  const subscribedStreams: WatchedStream[] = new Array(n);
  const otherStreams: WatchedStream[] = [];
  /** What the run was doing, for the error report. */
  let stage = 'starting';
  try {
    const fresh = await server.memoryAfterGc();
    const writer = await openSession(http);
    const setupStart = performance.now();
    const notifyNone: NotifyCost[] = [];
    const measureNotify = async (sessions: number) => {
      const cost = await server.command<{ nsPerCall: number }>('notify-none', {
        uri: NOBODY_URI,
        iterations: config.notifyIterations,
        batches: 5,
      });
      notifyNone.push({ sessions, nsPerCall: cost.nsPerCall });
    };

    const openUnsubscribed = async () => {
      const session = await openSession(http);
      otherStreams.push(await set.open(server.endpoint, session.headers));
    };
    const few = Math.min(FEW, unsubscribed);
    stage = `opening ${few} unsubscribed sessions with streams`;
    await inPool(few, config.setupConcurrency, openUnsubscribed);
    await measureNotify(few + 1);

    stage = `opening ${n} subscribed sessions with streams`;
    await inPool(n, config.setupConcurrency, async (i) => {
      const session = await openSession(http);
      await rpc(http, session, 'resources/subscribe', { uri: COUNTER_URI });
      subscribedStreams[i] = await set.open(server.endpoint, session.headers);
    });
    stage = `opening ${unsubscribed - few} more unsubscribed sessions with streams`;
    await inPool(unsubscribed - few, config.setupConcurrency, openUnsubscribed);
    stage = 'measuring';
    result.setupMs = performance.now() - setupStart;
    const streams = n + unsubscribed;
    const loaded = await server.memoryAfterGc();
    result.rssPerStreamSessionBytes = (loaded.rss - fresh.rss) / (streams + 1);
    result.heapPerStreamSessionBytes = (loaded.heapUsed - fresh.heapUsed) / (streams + 1);
    await measureNotify(streams + 1);
    result.notifyNone = notifyNone;

    // Barrier 1: every stream is attached and live before the update.
    await callJsonTool(http, writer, 'barrier');
    if (!(await set.waitUntil(() => set.totalListChanged >= streams, WAIT_MS))) {
      throw new Error(`only ${set.totalListChanged} of ${streams} streams got the first barrier`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));

    const rounds = config.fanoutRounds;
    const roundTimes: Array<{ ms?: number; p50: number; answerMs: number }> = [];
    const echoTimes: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < ECHO_PER_ROUND; i++) echoTimes.push(await timedEcho(http, writer, `r${round}e${i}`));
      const sent = performance.now();
      let answerMs = Number.NaN;
      const bump = callJsonTool(http, writer, 'bump').then((answer) => {
        answerMs = performance.now() - sent;
        return answer;
      });
      const arrived = await set.waitUntil(() => (set.streamsWith[round] ?? 0) >= n, WAIT_MS);
      const answer = await bump;
      if (Number(answer.reached) !== n) result.errors++;
      result.reached = Number(answer.reached);
      const arrivals = subscribedStreams
        .map((s) => s.counters.updatedAt[round - 1])
        .filter((t): t is number => t !== undefined)
        .map((t) => t - sent)
        .sort((a, b) => a - b);
      roundTimes.push({
        ms: arrived ? arrivals[arrivals.length - 1] : undefined,
        p50: percentile(arrivals, 50),
        answerMs,
      });
      if (!arrived) break;
    }
    result.rounds = rounds;
    result.roundsMs = roundTimes.map((r) => r.ms ?? Number.NaN);
    if (roundTimes.length === rounds && roundTimes.every((r) => r.ms !== undefined)) {
      const median = [...roundTimes].sort((a, b) => a.ms! - b.ms!)[Math.floor(rounds / 2)];
      result.fanoutMs = median.ms;
      result.p50ArrivalMs = median.p50;
      result.bumpAnswerMs = median.answerMs;
      result.bumpAnswerMedianMs = [...roundTimes].map((r) => r.answerMs).sort((a, b) => a - b)[Math.floor(rounds / 2)];
    }
    echoTimes.sort((a, b) => a - b);
    result.echoMs = percentile(echoTimes, 50);

    // Barrier 2: the proof.
    await callJsonTool(http, writer, 'barrier');
    result.barrierOk = await set.waitUntil(() => set.totalListChanged >= 2 * streams, WAIT_MS);

    result.delivered = subscribedStreams.filter((s) => s.counters.updated === rounds).length;
    result.missing = subscribedStreams.filter((s) => s.counters.updated < rounds).length;
    result.duplicates = subscribedStreams.filter((s) => s.counters.updated > rounds).length;
    result.leaked = otherStreams.filter((s) => s.counters.updated > 0).length;
    const all = [...subscribedStreams, ...otherStreams];
    result.unexpected =
      all.filter((s) => s.counters.otherUpdated > 0 || s.counters.unexpected > 0 || s.counters.listChanged !== 2)
        .length + set.endedEarly;
    result.errors +=
      result.missing + result.duplicates + result.leaked + result.unexpected + (result.barrierOk ? 0 : 1);
    log(
      `  fan-out ${kind} N=${n} (+${unsubscribed} unsubscribed): ${result.fanoutMs?.toFixed(1) ?? 'TIMEOUT'} ms to all (median of ${rounds} bumps: ${result.roundsMs.map((t) => t.toFixed(1)).join(', ')}; p50 ${result.p50ArrivalMs?.toFixed(1)} ms, bump answered in ${result.bumpAnswerMedianMs?.toFixed(2)} ms vs echo ${result.echoMs?.toFixed(2)} ms, reached ${result.reached}); missing ${result.missing}, duplicates ${result.duplicates}, leaked ${result.leaked}, unexpected ${result.unexpected}, barrier ${result.barrierOk ? 'ok' : 'FAILED'}; setup ${(result.setupMs / 1000).toFixed(1)} s; notify-none ${notifyNone.map((c) => `${c.nsPerCall.toFixed(0)} ns @${c.sessions}`).join(', ')}; ${(result.rssPerStreamSessionBytes / 1024).toFixed(1)} KB RSS/session with stream (heap ${(result.heapPerStreamSessionBytes / 1024).toFixed(1)} KB)`,
    );
  } catch (error) {
    const opened = set.streams.length;
    let state = server.alive ? 'server alive' : 'server exited';
    if (server.alive) {
      try {
        const stats = await server.command<{ sessions: number; streams?: number; fds?: number }>('stats', {}, 10_000);
        state += `: ${stats.sessions} sessions, ${stats.streams ?? '?'} streams, ${stats.fds ?? '?'} descriptors`;
      } catch (statsError) {
        state += ` (no stats: ${(statsError as Error).message})`;
      }
    }
    result.error = `${(error as Error).message} (while ${stage}; ${opened} streams opened by the bench; ${state})`;
    result.errors++;
    log(`  fan-out ${kind} N=${n}: FAILED ${result.error}\n${server.log}`);
  } finally {
    set.closeAll();
    http.close();
    await server.stop();
  }
  return result;
}
