/**
 * Places per caller (see `callerKeyOf`) for long-lived things of this instance: listens, held
 * event streams. A caller holds at most `limit` distinct places; the things taken under one key
 * share its place (a GET stream that replaces the session's previous one, which is still
 * closing, does not need a second place). A place is given back when the last thing under its
 * key releases it.
 */
export class CallerSlots {
  private readonly byCaller = new Map<string, Map<string, number>>();
  private unique = 0;

  constructor(private readonly limit: number) {}

  /**
   * Takes a place for `caller` under `key` (a new key of its own when omitted). Resolves to the
   * release, which only counts once however often it is called; `undefined` when the caller
   * already holds `limit` other places. A caller of `undefined` (stdio: one local caller) is
   * never counted.
   */
  take(caller: string | undefined, key = `#${++this.unique}`): (() => void) | undefined {
    if (caller === undefined) return () => undefined;
    if (!this.claim(caller, key)) return undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(caller, key);
    };
  }

  /** Places `caller` holds now. */
  count(caller: string): number {
    return this.byCaller.get(caller)?.size ?? 0;
  }

  /** Places held by every caller together. */
  get size(): number {
    let total = 0;
    for (const held of this.byCaller.values()) total += held.size;
    return total;
  }

  /**
   * `take` without a release function, for a holder that keeps `caller` and `key` anyway: false
   * when the caller already holds `limit` other places. Give the place back with `release`,
   * exactly once.
   */
  claim(caller: string | undefined, key: string): boolean {
    if (caller === undefined) return true;
    let held = this.byCaller.get(caller);
    const sharing = held?.get(key) ?? 0;
    if (sharing === 0 && (held?.size ?? 0) >= this.limit) return false;
    if (!held) this.byCaller.set(caller, (held = new Map()));
    held.set(key, sharing + 1);
    return true;
  }

  /** Gives back a place of `claim` (call it once per claim). */
  release(caller: string | undefined, key: string): void {
    if (caller === undefined) return;
    const held = this.byCaller.get(caller);
    const sharing = held?.get(key);
    if (!held || sharing === undefined) return;
    if (sharing > 1) held.set(key, sharing - 1);
    else held.delete(key);
    if (held.size === 0) this.byCaller.delete(caller);
  }
}
