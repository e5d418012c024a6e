import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { MCP_SESSION_STORE } from '../mcp.constants.js';
import { MCP_RESOLVED_OPTIONS } from '../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import type { McpConnection, McpSessionRecord, McpSessionStore } from './mcp-session.interface.js';
import { generateSessionId, isWellFormedSessionId } from './session-id.js';
import { McpTooManySessionsException } from '../errors/mcp-protocol.exceptions.js';

/** Why a session ended. */
export type McpSessionEndReason = 'deleted' | 'expired' | 'shutdown';

/** Called when a session ends, whatever the reason (subscriptions and outboxes hook in here). */
export type McpSessionEndListener = (sessionId: string, reason: McpSessionEndReason) => void | Promise<void>;

type NewSession = Omit<McpSessionRecord, 'id' | 'createdAt' | 'lastActivityAt' | 'initialized'>;

/**
 * Owns the life of sessions: creation, lookup with idle expiry, termination, the periodic sweep,
 * and the live connections (GET streams, sockets) that this instance holds for them.
 */
@Injectable()
export class McpSessionManager implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('McpSessions');
  private readonly connections = new Map<string, McpConnection>();
  private readonly endListeners: McpSessionEndListener[] = [];
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    @Inject(MCP_SESSION_STORE) private readonly store: McpSessionStore,
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
  ) {}

  onModuleInit(): void {
    if (!this.options.sessions) return;
    this.sweepTimer = setInterval(() => void this.sweep(), this.options.sessionCleanupIntervalMs);
    this.sweepTimer.unref();
  }

  /**
   * Streams close before the HTTP server does: Nest waits for open connections when it closes
   * the server, and an SSE stream would hold it open forever.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    const open = [...this.connections.keys()];
    await Promise.all(open.map((id) => this.end(id, 'shutdown')));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
  }

  /** Registers a listener for session ends. */
  onSessionEnd(listener: McpSessionEndListener): void {
    this.endListeners.push(listener);
  }

  /** True when a new session would pass `maxSessions`. */
  async isFull(): Promise<boolean> {
    return (await this.store.count()) >= this.options.maxSessions;
  }

  /** Creates a session; refused with `McpTooManySessionsException` at `maxSessions`. */
  async create(init: NewSession): Promise<McpSessionRecord> {
    if (await this.isFull()) {
      // Idle sessions may be holding the places: sweep once before refusing.
      await this.sweep();
      if (await this.isFull()) throw new McpTooManySessionsException(this.options.maxSessions);
    }
    const now = Date.now();
    const record: McpSessionRecord = {
      ...init,
      id: generateSessionId(),
      initialized: false,
      createdAt: now,
      lastActivityAt: now,
    };
    await this.store.create(record);
    return record;
  }

  /**
   * Finds a live session and marks activity. Malformed ids never reach the store; an idle
   * session found here is ended at once, so expiry does not wait for the sweep.
   */
  async resolve(id: unknown): Promise<McpSessionRecord | undefined> {
    if (!isWellFormedSessionId(id)) return undefined;
    const record = await this.store.get(id);
    if (!record) return undefined;
    const now = Date.now();
    if (this.isIdle(record, now)) {
      await this.end(id, 'expired');
      return undefined;
    }
    await this.store.touch(id, now);
    record.lastActivityAt = now;
    return record;
  }

  async markInitialized(id: string): Promise<void> {
    await this.store.update(id, { initialized: true });
  }

  /** Changes stored facts of a session (its log level, ...). */
  async update(id: string, patch: Partial<Omit<McpSessionRecord, 'id'>>): Promise<void> {
    await this.store.update(id, patch);
  }

  /** Ends a session: removes it from the store, closes its connections, tells the listeners. */
  async end(id: string, reason: McpSessionEndReason): Promise<boolean> {
    const existed = await this.store.delete(id);
    const connection = this.connections.get(id);
    this.connections.delete(id);
    connection?.close();
    // Ending twice (the sweep and a lookup racing) tells the listeners once.
    if (!existed && !connection) return false;
    for (const listener of this.endListeners) {
      try {
        await listener(id, reason);
      } catch (error) {
        this.logger.error(`Session end listener failed: ${(error as Error).message}`);
      }
    }
    return true;
  }

  /**
   * Attaches the session's standalone stream. A new one replaces the old one (DECISIONS D5),
   * which is closed.
   */
  attachConnection(id: string, connection: McpConnection): void {
    const previous = this.connections.get(id);
    this.connections.set(id, connection);
    if (previous && previous !== connection) previous.close();
  }

  /**
   * Detaches a stream if it is still the current one. The idle clock restarts now: the stream
   * kept the session alive until this moment, and the client may reconnect (spec 6.2).
   */
  detachConnection(id: string, connection: McpConnection): void {
    if (this.connections.get(id) !== connection) return;
    this.connections.delete(id);
    void this.store.touch(id, Date.now());
  }

  /** Sessions that hold a live standalone stream on this instance. */
  connectedSessionIds(): IterableIterator<string> {
    return this.connections.keys();
  }

  /** The live standalone stream of a session on this instance, if any. */
  getConnection(id: string): McpConnection | undefined {
    return this.connections.get(id);
  }

  async count(): Promise<number> {
    return this.store.count();
  }

  /** Ends every idle session. An open stream counts as activity. */
  async sweep(): Promise<number> {
    const now = Date.now();
    for (const id of this.connections.keys()) await this.store.touch(id, now);
    const idle = await this.store.findIdleSince(now - this.options.sessionIdleTimeoutMs);
    let ended = 0;
    for (const id of idle) {
      if (this.connections.has(id)) continue;
      if (await this.end(id, 'expired')) ended++;
    }
    if (ended > 0) this.logger.debug(`Expired ${ended} idle session(s)`);
    return ended;
  }

  private isIdle(record: McpSessionRecord, now: number): boolean {
    return !this.connections.has(record.id) && now - record.lastActivityAt > this.options.sessionIdleTimeoutMs;
  }
}
