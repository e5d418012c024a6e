/**
 * Live sessions per caller (a principal, or a remote address without auth) on this instance, for
 * `maxSessionsPerPrincipal`. A place is taken before the session is stored, so concurrent
 * `initialize` calls of one caller cannot pass the cap together, and given back when the
 * session ends (on any instance: the session store tells every one).
 */
export class SessionQuota {
  private readonly sessionsOf = new Map<string, Set<string>>();
  private readonly callerOf = new Map<string, string>();

  /** Takes a place for `sessionId`; false when `caller` already holds `limit` sessions. */
  take(caller: string, sessionId: string, limit: number): boolean {
    const held = this.sessionsOf.get(caller) ?? new Set<string>();
    if (held.size >= limit) return false;
    held.add(sessionId);
    this.sessionsOf.set(caller, held);
    this.callerOf.set(sessionId, caller);
    return true;
  }

  /** Gives back the place of a session that ended (or was never stored). */
  release(sessionId: string): void {
    const caller = this.callerOf.get(sessionId);
    if (caller === undefined) return;
    this.callerOf.delete(sessionId);
    const held = this.sessionsOf.get(caller);
    held?.delete(sessionId);
    if (held?.size === 0) this.sessionsOf.delete(caller);
  }

  /** Sessions `caller` holds here. */
  count(caller: string): number {
    return this.sessionsOf.get(caller)?.size ?? 0;
  }
}
