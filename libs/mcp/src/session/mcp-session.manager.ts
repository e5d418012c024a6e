import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MCP_LIVE_STREAMS, MCP_SESSION_STORE } from '../backend/mcp-backend.tokens.js';
import type { McpLiveStreams } from '../backend/mcp-live-streams.js';
import type {
  McpSessionEndListener,
  McpSessionEndReason,
  McpSessionPatch,
  McpSessionRecord,
  McpSessionStore,
} from '../backend/mcp-session.store.js';
import { onClientDeparture, stopWatchingDeparture } from './client-departure.js';
import { generateSessionId, isWellFormedSessionId } from './session-id.js';
import {
  isSamePrincipal,
  principalBinding,
  type McpPrincipal,
  type McpPrincipalBinding,
} from '../model/mcp-principal.js';
import { SessionQuota } from './session-quota.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { networkAttributes } from '../telemetry/transport-attributes.js';
import { ATTR_MCP_PROTOCOL_VERSION } from '../telemetry/semconv.js';
import { McpLogger } from '../logging/mcp-logger.js';
import { McpCapacityException } from '../errors/mcp-capacity.exception.js';
import { McpOptions, type McpOptionGroup } from '../mcp-option-groups.js';
import { isThenable } from '../model/is-object.js';

type NewSession = Omit<McpSessionRecord, 'id' | 'createdAt' | 'lastActivityAt' | 'initialized'>;

/** A request that lasted this long restarts its session's idle clock when it ends (a sweep may have moved it meanwhile). */
const LONG_REQUEST_MS = 1_000;

/**
 * The life of sessions: creation under the `maxSessions` cap, lookup with sliding idle expiry,
 * termination and the periodic sweep. State lives in the backend's session store; the streams
 * of sessions belong to the backend's live streams and POST streams.
 */
@Injectable()
export class McpSessionManager implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new McpLogger('McpSessions');
  private sweepTimer?: NodeJS.Timeout;
  private readonly quota = new SessionQuota();
  /** Requests in flight on this instance, by session: a session with one is never idle. */
  private readonly busy = new Map<string, number>();

  constructor(
    @Inject(MCP_SESSION_STORE) private readonly store: McpSessionStore,
    @Inject(MCP_LIVE_STREAMS) private readonly liveStreams: McpLiveStreams,
    @McpOptions('sessions') private readonly options: McpOptionGroup<'sessions'>,
    private readonly telemetry: McpTelemetry,
  ) {}

  onModuleInit(): void {
    if (!this.options.sessions) return;
    this.telemetry.gauge(
      'sessions.open',
      "Sessions open now, as the backend counts them: with a shared backend (Redis) every instance's sessions, the same figure from each instance.",
      '{session}',
      async (observe) => observe(await this.store.count()),
    );
    this.store.onEnded((id) => this.telemetry.sessionEnded(id));
    if (this.options.maxSessionsPerPrincipal !== undefined) this.store.onEnded((id) => this.quota.release(id));
    this.sweepTimer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.warn(`Session sweep failed: ${describe(error)}`));
    }, this.options.sessionCleanupIntervalMs);
    this.sweepTimer.unref();
  }

  /**
   * The sweep stops with the application. (Its streams close along the transports' one shutdown
   * path; sessions are not ended: a deploy must not delete them.)
   */
  onApplicationShutdown(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** Registers a listener for session ends (DELETE, expiry, a closed connection). */
  onSessionEnd(listener: McpSessionEndListener): void {
    this.store.onEnded(listener);
  }

  /**
   * Creates a session; refused with `McpCapacityException` ('sessions') at `maxSessions`, and with
   * `McpCapacityException` ('sessionsPerCaller') when `caller` (a principal key, or a remote address)
   * already holds `maxSessionsPerPrincipal` sessions.
   */
  async create(init: NewSession, caller?: string): Promise<McpSessionRecord> {
    const now = Date.now();
    const record: McpSessionRecord = {
      ...init,
      id: generateSessionId(),
      initialized: false,
      createdAt: now,
      lastActivityAt: now,
    };
    const perCaller = this.options.maxSessionsPerPrincipal;
    const counted = perCaller !== undefined && caller !== undefined;
    if (counted && !this.quota.take(caller, record.id, perCaller)) {
      throw new McpCapacityException('sessionsPerCaller', perCaller);
    }
    try {
      let created = await this.store.create(record, this.options.maxSessions);
      if (!created) {
        // Idle sessions may be holding the places: sweep once before refusing.
        await this.sweep();
        created = await this.store.create(record, this.options.maxSessions);
      }
      if (created) {
        this.telemetry.sessionStarted(record.id, now, {
          [ATTR_MCP_PROTOCOL_VERSION]: record.protocolVersion,
          ...networkAttributes(record.transport, undefined),
        });
        return record;
      }
    } catch (error) {
      this.quota.release(record.id);
      throw error;
    }
    this.quota.release(record.id);
    throw new McpCapacityException('sessions', this.options.maxSessions);
  }

  /**
   * Finds a live session and restarts its idle clock, in one store call. Malformed ids never
   * reach the store; a session that holds a stream here does not expire. A session of another
   * principal than `principal` is not found (the same answer as an unknown id, so its existence
   * is not revealed) and not touched: the store checks the principal before the clock. Without
   * auth both are undefined and always match.
   *
   * Answered in the store's own shape: at once when the store answers at once (the in-memory
   * one), so a request waits for nothing it need not, and in a promise when it answers with one
   * (`await` takes either). Whichever it is, the record's principal is checked here too: a store
   * of its own that ignores `principal` still hands no session over.
   */
  resolve(id: unknown, principal?: McpPrincipal): McpSessionRecord | undefined | Promise<McpSessionRecord | undefined> {
    if (!isWellFormedSessionId(id)) return undefined;
    const idleTimeoutMs =
      this.liveStreams.holds(id) || this.busy.has(id) ? Number.POSITIVE_INFINITY : this.options.sessionIdleTimeoutMs;
    const binding = principal && principalBinding(principal);
    let found: McpSessionRecord | undefined | Promise<McpSessionRecord | undefined>;
    try {
      found = this.store.access(id, Date.now(), idleTimeoutMs, binding);
    } catch (error) {
      // A store that fails at once fails the lookup as one that answers later does: in the promise.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (isThenable(found)) return Promise.resolve(found).then((session) => ownedBy(session, binding));
    // The same check as `ownedBy`, inline: the answer at once is every in-memory request's lookup.
    return found && (found.principal === binding || isSamePrincipal(found.principal, binding)) ? found : undefined;
  }

  /**
   * A request of session `id` runs here until the returned function is called: meanwhile the
   * session is not idle, as with an open stream (lookups never expire it, and every sweep of this
   * instance restarts its clock in the store, which every instance's sweep reads). A client that
   * only waits on a long request (a 2025-11-25 `tasks/result`, a slow tool call) keeps its
   * session; a long request restarts the clock when it ends. Over HTTP, a client that left (its
   * connection closed) no longer keeps the session alive through its request.
   */
  requestStarted(id: string, request?: unknown): () => void {
    this.busy.set(id, (this.busy.get(id) ?? 0) + 1);
    const startedAt = Date.now();
    let ended = false;
    const done = () => {
      if (ended) return;
      ended = true;
      if (watch) stopWatchingDeparture(watch, done);
      const left = (this.busy.get(id) ?? 1) - 1;
      if (left > 0) this.busy.set(id, left);
      else this.busy.delete(id);
      const now = Date.now();
      if (now - startedAt < LONG_REQUEST_MS) return;
      this.store
        .touch([id], now)
        .catch((error: unknown) => this.logger.warn(`Session touch failed: ${describe(error)}`));
    };
    // A client that left awaits nothing here any more (it may resume the answer on a new
    // request): from then on the request no longer keeps its session alive.
    const watch = onClientDeparture(request, done);
    return done;
  }

  /** Changes stored facts of a live session (its log level, ...); false when it ended. */
  update(id: string, patch: McpSessionPatch): Promise<boolean> {
    return this.store.update(id, patch);
  }

  /** Ends a session and everything it holds, as one operation; false when it was gone already. */
  end(id: string, reason: McpSessionEndReason): Promise<boolean> {
    return this.store.end(id, reason);
  }

  count(): Promise<number> {
    return this.store.count();
  }

  /**
   * Ends every idle session. An open stream and a request in flight count as activity: those of
   * this instance are touched first; the store keeps the streams held by other instances, whose
   * sweeps touch their requests in flight.
   */
  async sweep(): Promise<number> {
    const now = Date.now();
    const held = [...new Set([...this.liveStreams.heldSessions(), ...this.busy.keys()])];
    if (held.length > 0) await this.store.touch(held, now);
    const ended = await this.store.expireIdle(now - this.options.sessionIdleTimeoutMs);
    if (ended > 0) this.logger.debug(`Expired ${ended} idle session(s)`);
    return ended;
  }
}

/** `session` when it belongs to `binding` (the same binding, none without auth, needs no comparison). */
const ownedBy = (
  session: McpSessionRecord | undefined,
  binding: McpPrincipalBinding | undefined,
): McpSessionRecord | undefined =>
  session && (session.principal === binding || isSamePrincipal(session.principal, binding)) ? session : undefined;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
