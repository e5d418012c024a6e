/** The shapes of the bench's results (also the JSON file's). */
import type { LoadResult } from './client/load.js';
import type { OtlpCounts } from './client/otlp-receiver.js';
import type { ServerKind } from './client/server-process.js';

export interface EchoResult {
  server: ServerKind;
  warmup?: LoadResult;
  points: LoadResult[];
  error?: string;
}

export interface NotifyCost {
  /** Sessions open (all with a GET stream) when it was measured. */
  sessions: number;
  /** Median cost of one `notifyResourceUpdated(uri)` with no subscriber, in ns (in-process). */
  nsPerCall: number;
}

export interface FanoutResult {
  server: ServerKind;
  /** Subscribed sessions, each with an open GET stream. */
  n: number;
  /** Unsubscribed sessions with an open GET stream (fewer than n when descriptors run out). */
  unsubscribed: number;
  setupMs?: number;
  /** From sending `bump` to the last subscribed stream holding the notification: median of the rounds. */
  fanoutMs?: number;
  /** Each round's time (the first runs cold code). */
  roundsMs?: number[];
  /** Median arrival after sending `bump` (in the median round). */
  p50ArrivalMs?: number;
  /** The `bump` answer's round trip in the median round (the round whose time to all is the median). */
  bumpAnswerMs?: number;
  /** The `bump` answer's round trip: median over the rounds. */
  bumpAnswerMedianMs?: number;
  /** A plain `echo` call's round trip on the same session, in the same phase (every stream open): median. */
  echoMs?: number;
  /**
   * The server's CPU (user + system, µs) from just before a `bump` until every subscribed stream
   * holds its update: the call and its N writes. Median of the rounds: on a shared machine it
   * moves far less than the time to all.
   */
  cpuPerBumpUs?: number;
  /** Each round's server CPU per `bump` (µs). */
  roundsCpuUs?: number[];
  /** `reached` as the server counted it. */
  reached?: number;
  /** `bump`s sent, one at a time (each subscribed stream must get exactly this many updates). */
  rounds?: number;
  /** Subscribed streams that got every update (exactly once each is correct). */
  delivered?: number;
  missing?: number;
  duplicates?: number;
  /** Unsubscribed streams that got the update (must be 0). */
  leaked?: number;
  /** Events that were neither the update nor the barrier, or streams that ended early. */
  unexpected?: number;
  /** True when the proof barrier reached every stream after the update. */
  barrierOk?: boolean;
  notifyNone?: NotifyCost[];
  /** (RSS after GC with every session and stream open - RSS of the fresh server) / sessions. */
  rssPerStreamSessionBytes?: number;
  /** The same for the live JS heap (heapUsed): what of the RSS is JavaScript objects. */
  heapPerStreamSessionBytes?: number;
  errors: number;
  error?: string;
}

export interface MemoryPoint {
  n: number;
  /** RSS of the fresh, warmed-up server (its own process for each n). */
  baselineRss: number;
  baselineHeapUsed: number;
  rss: number;
  heapUsed: number;
  perSessionBytes: number;
  heapPerSessionBytes: number;
  afterDeleteRss: number;
  /** afterDeleteRss / baselineRss - 1 */
  afterDeleteVsBaseline: number;
  /** Live JS heap after the deletion minus the baseline's, per deleted session (a leak shows here). */
  afterDeleteHeapPerSessionBytes: number;
  sessionsReported?: number;
  sessionsAfterDelete?: number;
}

export interface MemoryResult {
  server: ServerKind;
  baselineRss?: number;
  baselineHeapUsed?: number;
  points: MemoryPoint[];
  errors: number;
  error?: string;
}

export interface ResourcesResult {
  server: ServerKind;
  count: number;
  /** In-process time to register `count` runtime resources (library only). */
  registerMs?: number;
  walk?: { walks: number; pages: number; items: number; msPerWalk: number; duplicates: number; missing: number };
  read?: LoadResult;
  errors: number;
  error?: string;
}

export interface ProfileFrame {
  frame: string;
  ms: number;
  pct: number;
}

export interface ProfileSummary {
  scenario: string;
  file: string;
  totalMs: number;
  samples: number;
  byArea: ProfileFrame[];
  topSelf: ProfileFrame[];
  topLibraryInclusive: ProfileFrame[];
  /**
   * The instrumented path: samples whose innermost telemetry frame (the library's telemetry code
   * or an OpenTelemetry package) is not the wrapper that runs the request's work in its span's
   * context; absent when there were none.
   */
  telemetry?: { ms: number; pctOfBusy: number; topSelf: ProfileFrame[] };
}

export interface TargetResult {
  id: string;
  /** The library kind the target is evaluated for (controller or direct mount). */
  server?: ServerKind;
  /** Reported for information, not a target of the issue (`pass` is null). */
  informational?: boolean;
  text: string;
  value?: number;
  threshold: string;
  /** null: not measured in this run. */
  pass: boolean | null;
  detail?: string;
}

export interface TableRow {
  section: string;
  metric: string;
  unit: string;
  /** 'higher' or 'lower' is better. */
  better: 'higher' | 'lower';
  values: Partial<Record<ServerKind, number>>;
  /** Per ratio column (see RATIO_COLUMNS in report/table.ts): library kind ÷ other server. */
  ratios: Partial<Record<RatioKey, number>>;
}

/**
 * Ratio columns, named by the servers' numbers: 1 this library (controller mount), 2 the
 * official SDK, 3 bare Nest, 4 bare node:http, D this library with the direct mount, T tmcp.
 */
export type RatioKey = '1:2' | '1:3' | '1:4' | '1:T' | 'D:2' | 'D:4' | 'D:T';

export interface BenchMeta {
  date: string;
  smoke: boolean;
  machine: { cpus: number; model: string; memoryGiB: number; fdLimit: number; kernel: string; loadAverage: number[] };
  node: string;
  versions: Record<string, string>;
  git?: string;
  durationS: number;
  totalSeconds?: number;
}

/** The protocol era of a request: 2025 sessions (`initialize`) or MCP 2026-07-28 (stateless). */
export type Era = 'legacy' | 'modern';

/** A `tools/call` load point with where its CPU went, per request. */
export interface EchoOnBackend extends LoadResult {
  /** CPU of the gateway process per answered request (µs). */
  serverCpuUsPerRequest?: number;
  /** CPU of `redis-server` per answered request (µs; 0 on the in-memory backend). */
  redisCpuUsPerRequest?: number;
}

export interface EraPoint extends LoadResult {
  /** Server CPU (user + system, `process.cpuUsage()` in the server) per answered request, in µs. */
  cpuUsPerRequest?: number;
}

/** `tools/call echo` of one era on one server (the era phase). */
export interface EraResult {
  server: ServerKind;
  era: Era;
  warmup?: LoadResult;
  points: EraPoint[];
  error?: string;
}

/** What one fan-out run measured (median round) and how its recipients fared. */
export interface FanoutOutcome {
  n: number;
  setupMs?: number;
  /** From the server's `notifyResourceUpdated` call to the last recipient holding it: median round. */
  fanoutMs?: number;
  roundsMs?: number[];
  /** Median arrival (in the median round). */
  p50ArrivalMs?: number;
  /** CPU time of the server(s) from the call until every recipient held the update (median round), in ms. */
  serverCpuMs?: number;
  /** That CPU time per measured round, in ms. */
  roundsCpuMs?: number[];
  /** Measured rounds (warm-up rounds left out). */
  rounds?: number;
  /** Rounds run before the measured ones and dropped (cold code and connections). */
  warmupRounds?: number;
  /** Recipients that got every update exactly once. */
  delivered?: number;
  missing?: number;
  duplicates?: number;
  /** Events that were neither the acknowledgement nor the update, or streams that ended early. */
  unexpected?: number;
  errors: number;
  error?: string;
}

/** `subscriptions/listen` fan-out: n listens on `mem://counter`, one `notifyResourceUpdated` at a time. */
export interface ListenFanoutResult extends FanoutOutcome {
  server: ServerKind;
}

/** Fan-out over the Redis backend: subscribers spread over the instances, one notification at a time. */
export interface RedisFanoutResult extends FanoutOutcome {
  instances: number;
  /** `memory`: the single-instance reference run (one in-memory library process, no Redis). */
  backend?: 'memory';
  /** `modern`: `subscriptions/listen` streams; unset: legacy subscribed sessions with GET streams. */
  era?: 'modern';
  /** Redis commands (INFO commandstats, the bench's own INFO left out, those run by Lua scripts counted) per notification: the round with the fewest. */
  commandsPerNotification?: number;
  /** The median round's commands by name. */
  commands?: Record<string, number>;
}

export interface RedisResult {
  redisVersion?: string;
  fanout: RedisFanoutResult[];
  /** The same fan-out at the largest N on one in-memory library process (the single-instance time). */
  singleInstance?: RedisFanoutResult;
  /** Fan-out to modern `subscriptions/listen` streams across the instances, per N. */
  listenFanout?: RedisFanoutResult[];
  /** The listen fan-out at the largest N on one in-memory library process. */
  listenSingleInstance?: RedisFanoutResult;
  /**
   * `tools/call echo` at concurrency 16 on one legacy session: in-memory backend vs Redis (direct
   * mount both), the best of interleaved rounds each; every round's rates in `rounds`.
   */
  echo?: {
    memory: EchoOnBackend;
    redis: EchoOnBackend;
    rounds: { memoryRps: number; redisRps: number }[];
    /** Errors over every round of both. */
    errors: number;
  };
  /** Idle sessions held in Redis. */
  memory?: {
    sessions: number;
    /** (INFO used_memory after - before) / sessions. */
    usedMemoryPerSessionBytes: number;
    /** Sum of MEMORY USAGE over a sample of sessions' keys, per session. */
    memoryUsagePerSessionBytes: number;
    /** Keys per idle session. */
    keysPerSession: number;
    sampled: number;
  };
  errors: number;
  error?: string;
}

/** The tasks phase: tasks on the instances sharing Redis (see phases/tasks.ts). */
export interface TasksResult {
  /** Tasks created and polled. */
  n: number;
  instances: number;
  /** The poll interval the tasks suggested (their `pollIntervalMs`). */
  pollIntervalMs?: number;
  /** Tasks created per second (64 calls in flight). */
  createdPerSecond?: number;
  /** Plain modern `tools/call echo` per second, the same way. */
  echoPerSecond?: number;
  /** `tasks/get` answered during the polling window. */
  polls?: number;
  pollP50Ms?: number;
  pollP99Ms?: number;
  /** Commands Redis ran for a client (round trips) per poll, less the idle window's. */
  roundTripsPerPoll?: number;
  /** EVALSHA of the `tasks/get` script per poll. */
  getScriptsPerPoll?: number;
  /** Commands run inside Lua scripts per poll, less the idle window's. */
  scriptCommandsPerPoll?: number;
  errors: number;
  error?: string;
}

/**
 * How the library fixture's telemetry is set up (`BENCH_TELEMETRY`): `off` (`telemetry: {
 * tracing: false, metrics: false }`: no instrument at all), `api` (the instruments on, no SDK: the
 * API's no-ops) or `sdk` (the OpenTelemetry Node SDK exporting to the bench's OTLP receiver).
 */
export type TelemetryMode = 'off' | 'api' | 'sdk';

/** One mode's load point in one round, with the server's CPU per answered request. */
export interface TelemetryPoint extends LoadResult {
  /** CPU (user + system, `process.cpuUsage()` in the server) per answered request, in µs. */
  serverCpuUsPerRequest?: number;
}

/** A ratio of one mode to `off`, taken two ways over the interleaved rounds. */
export interface TelemetryRatio {
  /** The best round of the mode ÷ the best round of `off`. */
  best?: number;
  /** The median over the rounds of (the mode ÷ `off` within the round). */
  medianOfRounds?: number;
  /** Every round's ratio, in round order. */
  rounds: number[];
  /**
   * Server CPU per request of the mode ÷ that of `off`: the median over the rounds. The load
   * generator shares the two cores, so throughput can hide a cost the server's CPU still shows.
   */
  cpuMedianOfRounds?: number;
  cpuRounds?: number[];
}

/** One mount of the telemetry phase: `off`, `api` and `sdk` up at once, taking turns over rounds. */
export interface TelemetryMountResult {
  server: ServerKind;
  warmup: Partial<Record<TelemetryMode, LoadResult>>;
  /** Each round: the order the modes ran in, and each mode's point. */
  rounds: { order: TelemetryMode[]; points: Record<TelemetryMode, TelemetryPoint> }[];
  /** Per mode: its best round (most answers per second; a round with errors loses). */
  best: Partial<Record<TelemetryMode, TelemetryPoint>>;
  /** Per mode: the median over the rounds of its throughput and of its server CPU per request. */
  medianRps: Partial<Record<TelemetryMode, number>>;
  medianCpuUsPerRequest: Partial<Record<TelemetryMode, number>>;
  /** api ÷ off and sdk ÷ off, throughput. */
  apiVsOff: TelemetryRatio;
  sdkVsOff: TelemetryRatio;
  /** What the `sdk` server's exporters sent the receiver while the rounds ran, and in all (its shutdown flush included). */
  exportsDuringRounds?: OtlpCounts;
  exportsTotal?: OtlpCounts;
  /** Requests the `sdk` server answered (warm-up and rounds; session setup not counted). */
  sdkRequests?: number;
  errors: number;
  error?: string;
}

/** The telemetry phase: per mount, the library without instrumentation, with the API's no-ops, and with the SDK exporting. */
export interface TelemetryResult {
  rounds: number;
  durationS: number;
  concurrency: number;
  mounts: TelemetryMountResult[];
  errors: number;
  error?: string;
}

/** The library on Nest's Fastify platform beside Express (phases/fastify.ts). */
export interface FastifyResult {
  /**
   * `tools/call echo` at concurrency 16 on one legacy session per server, the servers taking
   * turns: the best round of each, and every round's rates.
   */
  echo?: {
    best: Partial<Record<ServerKind, LoadResult>>;
    rounds: Array<Record<string, number>>;
    /** Every round's server CPU (user + system) per answered request, in µs. */
    cpuRounds: Array<Partial<Record<ServerKind, number>>>;
    /** The median over the rounds of each server's CPU per answered request, in µs. */
    cpuMedian: Partial<Record<ServerKind, number>>;
    /** Errors over every round of every server. */
    errors: number;
  };
  /**
   * Fan-out to the same N on each mount on Fastify and on Express, each pair up at once and
   * taking turns round by round; listed per mount, on Fastify then on Express.
   */
  fanout: FanoutResult[];
  /**
   * `subscriptions/listen` fan-out to the same N on the MCP servers on Fastify (each mount of
   * the library, the official SDK v2), one after the other: the SDK's stateless legacy fallback
   * has no sessions for the fan-out above.
   */
  listen?: ListenFanoutResult[];
  errors: number;
  error?: string;
}

/** One Redis deployment of the Redis Cluster phase: one node, or a cluster of three masters. */
export type RedisTopology = 'single' | 'cluster';

/** The library's instances on one node and on a three-master cluster (phases/redis-cluster.ts). */
/** Round trips to Redis per answered `tools/call` (see client/redis-monitor.ts). */
export interface RoundTripsPerRequest {
  /** One request at a time: every request its own event-loop turn, so its own lookup. */
  c1: number;
  /** Sixteen at a time: the requests of one turn share one lookup. */
  c16: number;
  /** What the concurrency-1 window sent, per command. */
  commandsC1: Record<string, number>;
}

export interface RedisClusterResult {
  redisVersion?: string;
  /**
   * Fan-out across the instances at the same N, one result per topology: its runs (set up afresh,
   * taking turns with the other topology's) merged, the medians over all their measured rounds.
   */
  fanout: Array<RedisFanoutResult & { topology: RedisTopology; runs?: number }>;
  /**
   * `tools/call echo` at concurrency 16 on one legacy session (direct mount, Redis backend) per
   * topology, taking turns; the best round of each. Then, per topology, the round trips to Redis
   * per request (MONITOR: each command a client sent, a script call once) at concurrency 1 and 16.
   */
  echo?: {
    single: EchoOnBackend;
    cluster: EchoOnBackend;
    rounds: { singleRps: number; clusterRps: number }[];
    roundTrips: Partial<Record<RedisTopology, RoundTripsPerRequest>>;
    errors: number;
  };
  errors: number;
  error?: string;
}
