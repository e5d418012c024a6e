import type { McpFanout } from './mcp-fanout.js';
import type { McpInstanceMessaging } from './mcp-instance-messaging.js';
import type { McpLiveStreams } from './mcp-live-streams.js';
import type { McpPostStreams } from './mcp-post-streams.js';
import type { McpRateWindows } from './mcp-rate-windows.js';
import type { McpRequestStateNonces } from './mcp-request-state-nonces.js';
import type { McpSessionStore } from './mcp-session.store.js';
import type { McpSkillStore } from './mcp-skill.store.js';
import type { McpSubscriptionStore } from './mcp-subscription.store.js';
import type { McpTaskStore } from '../extensions/tasks/store/mcp-task.store.js';

// Declared among the errors (a store of the library's own throws it too); a backend finds it here.
export { McpBackendUnavailableError } from '../errors/mcp-backend-unavailable.error.js';

/**
 * The module settings a backend builds its parts with (the module's options after defaults; a
 * backend reads nothing else of them). @publicApi
 */
export interface McpBackendSettings {
  /** Messages kept per session for `Last-Event-ID`, and events kept per POST answer. */
  readonly replayBufferSize: number;
  /** Idle time after which a session expires, in milliseconds. */
  readonly sessionIdleTimeoutMs: number;
}

/** An attribute value of a backend's span or gauge (OpenTelemetry's primitive values). @publicApi */
export type McpBackendAttributes = Readonly<Record<string, string | number | boolean>>;

/** A span a backend opened for one round trip to its storage. @publicApi */
export interface McpBackendSpan {
  /**
   * Ends the span, with `attributes` learned by then; `error` marks it failed (`error.type`: the
   * first word of the message when it is a code such as Redis's `ERR`, else the error's name).
   * Once.
   */
  end(error?: unknown, attributes?: McpBackendAttributes): void;
}

/**
 * The module's telemetry as a backend records through it (OpenTelemetry, through the tracer and
 * meter providers the module uses: `telemetry.tracerProvider`/`meterProvider`, or the global
 * ones). Nothing here needs `@opentelemetry/api` in the backend's own dependencies. @publicApi
 */
export interface McpBackendTelemetry {
  /**
   * A CLIENT span for one round trip to the backend's storage (one command, one script), as a
   * child of the active span, in the database semantic conventions (`db.system.name`,
   * `db.operation.name`, `server.address`, `server.port`). Undefined, with nothing made, when no
   * recorded span is active: tracing off, no SDK, an unsampled request, or background work
   * outside any request (a heartbeat, a pub/sub message). Call it where the command is sent, so
   * the request's context is the active one.
   */
  startRoundTrip(name: string, attributes: McpBackendAttributes): McpBackendSpan | undefined;
  /**
   * Registers an observable gauge `nest_mcp.<name>` (once, when the backend connects), read at
   * each collection; `read` may be async. Nothing with metrics off.
   */
  gauge(
    name: string,
    description: string,
    unit: string,
    read: (observe: (value: number, attributes?: McpBackendAttributes) => void) => void | Promise<void>,
  ): void;
}

/** What a backend is given when the module starts. @publicApi */
export interface McpBackendContext {
  readonly options: McpBackendSettings;
  /**
   * The module's telemetry: spans of the backend's round trips, its gauges. Always given by the
   * module; absent when a test builds the parts by hand.
   */
  readonly telemetry?: McpBackendTelemetry;
}

/**
 * The seams of one running module, built by a backend: one small interface per concern, each
 * consumer of the core depending on the seams it uses only. One object may implement several
 * of them (delivery to sessions and their live streams share state); each is named here.
 * @publicApi
 */
export interface McpBackendParts {
  /** Session records, their idle expiry, and the news of their ends. */
  readonly sessions: McpSessionStore;
  /** Which session is subscribed to which resource URI. */
  readonly subscriptions: McpSubscriptionStore;
  /** Notifications to their audience on every instance (resource updated, list changed). */
  readonly fanout: McpFanout;
  /** The standalone stream of each session held by this instance, and messages for one session. */
  readonly liveStreams: McpLiveStreams;
  /** The logs of POST answers, and their resumption with `Last-Event-ID`. */
  readonly postStreams: McpPostStreams;
  /**
   * Messages between instances (client answers and cancellations routed to the instance that
   * holds the request). @default one instance: delivered in process
   */
  readonly messaging?: McpInstanceMessaging;
  /** Rate-limit windows every instance shares. @default counted per process */
  readonly rateWindows?: McpRateWindows;
  /**
   * The replay guard of MRTR `requestState`, shared by every instance: a state is accepted once,
   * wherever it is presented. @default remembered per process (a state accepted by one
   * instance could be presented once more to each other instance; a startup warning says so
   * when the backend is shared)
   */
  readonly requestStateNonces?: McpRequestStateNonces;
  /**
   * Where tasks live (long-running tool calls the client polls), shared by every instance so any
   * of them answers for any task. @default kept per process (with several instances, a task is
   * then found only on the instance that created it; a startup warning says so)
   */
  readonly tasks?: McpTaskStore;
  /**
   * The skills registered at runtime (`McpSkills`), shared by every instance so each serves
   * all of them. @default kept per process (with several instances, a skill is then served only
   * by the instance that registered it)
   */
  readonly skills?: McpSkillStore;
  /** Releases connections and timers when the application shuts down. */
  close?(): Promise<void>;
}

/**
 * Where sessions, subscriptions and delivery state live: the in-memory default (one process,
 * nothing to install) or a shared one (the Redis backend, `@nest-mcp/redis`) with which several
 * instances behave as one. Pass it as `McpModule.forRoot({ backend })`.
 * @publicApi
 */
export interface McpBackend {
  /** Builds the parts once, when the module starts. */
  connect(context: McpBackendContext): McpBackendParts | Promise<McpBackendParts>;
}
