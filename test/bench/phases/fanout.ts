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
import { cpuUsOf } from './redis.js';

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

/**
 * Sizes of one run. `share`: how many runs are up at once (the Fastify phase holds a Fastify and
 * an Express run side by side), which split the client's descriptors between them.
 */
export function fanoutSizes(config: BenchConfig, n: number, share = 1): { n: number; unsubscribed: number } {
  const budget = Math.floor((config.fdLimit - config.fdReserve - config.setupConcurrency) / share);
  const subscribed = Math.min(n, budget);
  return { n: subscribed, unsubscribed: Math.max(0, Math.min(n, budget - subscribed)) };
}

/**
 * One fan-out run in three steps, so that runs on several servers can take turns round by round
 * (the Fastify phase): `open` starts the server and sets up every session and stream, `round`
 * times one `bump`, `finish` sends the proof barrier, counts, logs and stops the server. A failure
 * at any step is recorded in the result, and the later steps only close what is open.
 */
export class FanoutRun {
  readonly result: FanoutResult;
  private readonly http: BenchHttp;
  private readonly set = new StreamSet(COUNTER_URI);
  private readonly subscribedStreams: WatchedStream[];
  private readonly otherStreams: WatchedStream[] = [];
  private readonly roundTimes: Array<{ ms?: number; p50: number; answerMs: number; cpuUs?: number }> = [];
  private readonly echoTimes: number[] = [];
  private writer?: McpSession;
  /** What the run was doing, for the error report. */
  private stage = 'starting';
  /** A round timed out or a step failed: the later rounds are skipped. */
  private stopped = false;
  /** The rounds asked of this run (skipped ones too): what `finish` expects to have been timed. */
  private roundsAsked = 0;

  private constructor(
    private readonly config: BenchConfig,
    private readonly server: ServerProcess,
    private readonly log: (line: string) => void,
    sizes: { n: number; unsubscribed: number },
  ) {
    this.result = { server: server.kind, ...sizes, errors: 0 };
    this.http = new BenchHttp(server.endpoint, config.setupConcurrency);
    this.subscribedStreams = new Array(sizes.n);
  }

  static async open(
    config: BenchConfig,
    kind: ServerKind,
    requestedN: number,
    log: (line: string) => void,
    share = 1,
  ): Promise<FanoutRun> {
    const run = new FanoutRun(config, await ServerProcess.start(kind), log, fanoutSizes(config, requestedN, share));
    try {
      await run.setUp();
    } catch (error) {
      await run.fail(error as Error);
    }
    return run;
  }

  private async setUp(): Promise<void> {
    const { config, server, http, set, result } = this;
    const { n, unsubscribed } = result;
    const fresh = await server.memoryAfterGc();
    this.writer = await openSession(http);
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
      this.otherStreams.push(await set.open(server.endpoint, session.headers));
    };
    const few = Math.min(FEW, unsubscribed);
    this.stage = `opening ${few} unsubscribed sessions with streams`;
    await inPool(few, config.setupConcurrency, openUnsubscribed);
    await measureNotify(few + 1);

    this.stage = `opening ${n} subscribed sessions with streams`;
    await inPool(n, config.setupConcurrency, async (i) => {
      const session = await openSession(http);
      await rpc(http, session, 'resources/subscribe', { uri: COUNTER_URI });
      this.subscribedStreams[i] = await set.open(server.endpoint, session.headers);
    });
    this.stage = `opening ${unsubscribed - few} more unsubscribed sessions with streams`;
    await inPool(unsubscribed - few, config.setupConcurrency, openUnsubscribed);
    this.stage = 'measuring';
    result.setupMs = performance.now() - setupStart;
    const streams = n + unsubscribed;
    const loaded = await server.memoryAfterGc();
    result.rssPerStreamSessionBytes = (loaded.rss - fresh.rss) / (streams + 1);
    result.heapPerStreamSessionBytes = (loaded.heapUsed - fresh.heapUsed) / (streams + 1);
    await measureNotify(streams + 1);
    result.notifyNone = notifyNone;

    // Barrier 1: every stream is attached and live before the update.
    await callJsonTool(http, this.writer, 'barrier');
    if (!(await set.waitUntil(() => set.totalListChanged >= streams, WAIT_MS))) {
      throw new Error(`only ${set.totalListChanged} of ${streams} streams got the first barrier`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  /** Round `round` (1, 2, … in order): ECHO_PER_ROUND plain calls, then one `bump` timed to the last stream. */
  async round(round: number): Promise<void> {
    this.roundsAsked = Math.max(this.roundsAsked, round);
    if (this.stopped) return;
    const { http, set, result } = this;
    const writer = this.writer!;
    const n = result.n;
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < ECHO_PER_ROUND; i++) this.echoTimes.push(await timedEcho(http, writer, `r${round}e${i}`));
      const cpuBefore = await cpuUsOf(this.server);
      const sent = performance.now();
      let answerMs = Number.NaN;
      const bump = callJsonTool(http, writer, 'bump').then((answer) => {
        answerMs = performance.now() - sent;
        return answer;
      });
      const arrived = await set.waitUntil(() => (set.streamsWith[round] ?? 0) >= n, WAIT_MS);
      const answer = await bump;
      // Every stream holds the update, so the server has made every write: its CPU since just
      // before the bump is the bump's call and its delivery (timers and the IPC round trip aside).
      const cpuUs = arrived ? (await cpuUsOf(this.server)) - cpuBefore : undefined;
      if (Number(answer.reached) !== n) result.errors++;
      result.reached = Number(answer.reached);
      const arrivals = this.subscribedStreams
        .map((s) => s.counters.updatedAt[round - 1])
        .filter((t): t is number => t !== undefined)
        .map((t) => t - sent)
        .sort((a, b) => a - b);
      this.roundTimes.push({
        ms: arrived ? arrivals[arrivals.length - 1] : undefined,
        p50: percentile(arrivals, 50),
        answerMs,
        cpuUs,
      });
      if (!arrived) this.stopped = true;
    } catch (error) {
      await this.fail(error as Error);
    }
  }

  /** The median round, the proof barrier and the counts; logs the run and stops the server. */
  async finish(): Promise<FanoutResult> {
    const { http, set, result, roundTimes, echoTimes } = this;
    const { n, unsubscribed } = result;
    // The caller decides how many (the fan-out phase BENCH_FANOUT_ROUNDS, the Fastify phase its own).
    const rounds = this.roundsAsked;
    try {
      if (this.stopped && result.error) return result;
      result.rounds = rounds;
      result.roundsMs = roundTimes.map((r) => r.ms ?? Number.NaN);
      if (roundTimes.length === rounds && roundTimes.every((r) => r.ms !== undefined)) {
        const median = [...roundTimes].sort((a, b) => a.ms! - b.ms!)[Math.floor(rounds / 2)];
        result.fanoutMs = median.ms;
        result.p50ArrivalMs = median.p50;
        result.bumpAnswerMs = median.answerMs;
        result.bumpAnswerMedianMs = [...roundTimes].map((r) => r.answerMs).sort((a, b) => a - b)[
          Math.floor(rounds / 2)
        ];
        result.roundsCpuUs = roundTimes.map((r) => r.cpuUs!);
        result.cpuPerBumpUs = [...result.roundsCpuUs].sort((a, b) => a - b)[Math.floor(rounds / 2)];
      }
      echoTimes.sort((a, b) => a - b);
      result.echoMs = percentile(echoTimes, 50);

      // Barrier 2: the proof.
      const streams = n + unsubscribed;
      await callJsonTool(http, this.writer!, 'barrier');
      result.barrierOk = await set.waitUntil(() => set.totalListChanged >= 2 * streams, WAIT_MS);

      const { subscribedStreams, otherStreams } = this;
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
      const notifyNone = result.notifyNone ?? [];
      this.log(
        `  fan-out ${result.server} N=${n} (+${unsubscribed} unsubscribed): ${result.fanoutMs?.toFixed(1) ?? 'TIMEOUT'} ms to all (median of ${rounds} bumps: ${result.roundsMs.map((t) => t.toFixed(1)).join(', ')}; p50 ${result.p50ArrivalMs?.toFixed(1)} ms, bump answered in ${result.bumpAnswerMedianMs?.toFixed(2)} ms vs echo ${result.echoMs?.toFixed(2)} ms, reached ${result.reached}; server CPU per bump ${((result.cpuPerBumpUs ?? Number.NaN) / 1000).toFixed(2)} ms, median); missing ${result.missing}, duplicates ${result.duplicates}, leaked ${result.leaked}, unexpected ${result.unexpected}, barrier ${result.barrierOk ? 'ok' : 'FAILED'}; setup ${((result.setupMs ?? 0) / 1000).toFixed(1)} s; notify-none ${notifyNone.map((c) => `${c.nsPerCall.toFixed(0)} ns @${c.sessions}`).join(', ')}; ${((result.rssPerStreamSessionBytes ?? 0) / 1024).toFixed(1)} KB RSS/session with stream (heap ${((result.heapPerStreamSessionBytes ?? 0) / 1024).toFixed(1)} KB)`,
      );
    } catch (error) {
      await this.fail(error as Error);
    } finally {
      set.closeAll();
      http.close();
      await this.server.stop();
    }
    return result;
  }

  /** Records the failure with what the run was doing and the server's state; no more rounds. */
  private async fail(error: Error): Promise<void> {
    const { server, result } = this;
    this.stopped = true;
    const opened = this.set.streams.length;
    let state = server.alive ? 'server alive' : 'server exited';
    if (server.alive) {
      try {
        const stats = await server.command<{ sessions: number; streams?: number; fds?: number }>('stats', {}, 10_000);
        state += `: ${stats.sessions} sessions, ${stats.streams ?? '?'} streams, ${stats.fds ?? '?'} descriptors`;
      } catch (statsError) {
        state += ` (no stats: ${(statsError as Error).message})`;
      }
    }
    result.error = `${error.message} (while ${this.stage}; ${opened} streams opened by the bench; ${state})`;
    result.errors++;
    this.log(`  fan-out ${result.server} N=${result.n}: FAILED ${result.error}\n${server.log}`);
  }
}

/** One fan-out run on its own: set up, `BENCH_FANOUT_ROUNDS` rounds, the proof. */
export async function runFanout(
  config: BenchConfig,
  kind: ServerKind,
  requestedN: number,
  log: (line: string) => void,
): Promise<FanoutResult> {
  const run = await FanoutRun.open(config, kind, requestedN, log);
  for (let round = 1; round <= config.fanoutRounds; round++) await run.round(round);
  return run.finish();
}
