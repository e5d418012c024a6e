import { isSamePrincipal, type McpPrincipalBinding } from '../../model/mcp-principal.js';
import type {
  McpSessionEndListener,
  McpSessionEndReason,
  McpSessionPatch,
  McpSessionRecord,
  McpSessionStore,
} from '../mcp-session.store.js';
import { McpLogger } from '../../logging/mcp-logger.js';

/** Told, synchronously and inside `end`, that a session ended: the sibling stores clear it. */
export type InMemorySessionEndHook = (sessionId: string) => void;

/**
 * The default session store: one process, records in a `Map` (never a plain object, so ids like
 * `__proto__` are just unknown keys).
 *
 * Ending is one synchronous step: the record goes, then the end hooks of the sibling in-memory
 * parts (subscriptions, outboxes and streams, POST-stream logs) run before `end` returns, with
 * no await in between. A write that checks `isAlive` in the same turn as it stores therefore
 * never outlives the session. The `onEnded` listeners are told after that, in the same step.
 */
export class InMemorySessionStore implements McpSessionStore {
  private readonly logger = new McpLogger('McpDelivery');
  private readonly sessions = new Map<string, McpSessionRecord>();
  private readonly endHooks: InMemorySessionEndHook[] = [];
  private readonly endListeners: McpSessionEndListener[] = [];

  /** Runs `hook` inside every `end`, before the listeners (not part of the public store contract). */
  clearOnEnd(hook: InMemorySessionEndHook): void {
    this.endHooks.push(hook);
  }

  onEnded(listener: McpSessionEndListener): void {
    this.endListeners.push(listener);
  }

  /** True while the session exists: the check every conditional write makes. */
  isAlive(id: string): boolean {
    return this.sessions.has(id);
  }

  /** A copy of a live record, its idle clock untouched (diagnostics and tests). */
  peek(id: string): McpSessionRecord | undefined {
    const record = this.sessions.get(id);
    return record && { ...record };
  }

  async create(record: McpSessionRecord, limit: number): Promise<boolean> {
    if (this.sessions.size >= limit) return false;
    this.sessions.set(record.id, { ...record });
    return true;
  }

  /** Answered at once: a lookup here waits for nothing, so a request does not suspend on it. */
  access(
    id: string,
    now: number,
    idleTimeoutMs: number,
    principal?: McpPrincipalBinding,
  ): McpSessionRecord | undefined {
    const record = this.sessions.get(id);
    // Another principal's lookup is refused before it can touch (or expire) the session.
    // The same binding (none, without auth) is the same principal without comparing fields.
    if (!record || (record.principal !== principal && !isSamePrincipal(record.principal, principal))) return undefined;
    if (now - record.lastActivityAt > idleTimeoutMs) {
      this.endNow(id, 'expired');
      return undefined;
    }
    record.lastActivityAt = now;
    // A copy, as any shared store would return: callers never write through it.
    return { ...record };
  }

  async update(id: string, patch: McpSessionPatch): Promise<boolean> {
    const record = this.sessions.get(id);
    if (!record) return false;
    Object.assign(record, patch);
    return true;
  }

  async touch(ids: readonly string[], now: number): Promise<void> {
    for (const id of ids) {
      const record = this.sessions.get(id);
      if (record) record.lastActivityAt = now;
    }
  }

  async end(id: string, reason: McpSessionEndReason): Promise<boolean> {
    return this.endNow(id, reason);
  }

  /** One process: the caller touched the sessions its streams keep alive before asking. */
  async expireIdle(cutoff: number): Promise<number> {
    const idle: string[] = [];
    for (const record of this.sessions.values()) if (record.lastActivityAt < cutoff) idle.push(record.id);
    let ended = 0;
    for (const id of idle) if (this.endNow(id, 'expired')) ended++;
    return ended;
  }

  async count(): Promise<number> {
    return this.sessions.size;
  }

  private endNow(id: string, reason: McpSessionEndReason): boolean {
    if (!this.sessions.delete(id)) return false;
    for (const hook of this.endHooks) hook(id);
    for (const listener of this.endListeners) {
      try {
        // A listener's failure, sync or async, never escapes into the code that ended the session.
        void Promise.resolve(listener(id, reason)).catch(this.listenerFailed);
      } catch (error) {
        this.listenerFailed(error);
      }
    }
    return true;
  }

  private readonly listenerFailed = (error: unknown): void =>
    this.logger.error(`A session end listener failed: ${error instanceof Error ? error.message : String(error)}`);
}
