import type { McpSubscriptionStore } from '../mcp-subscription.store.js';
import type { InMemorySessionStore } from './in-memory-session.store.js';

const NO_SESSIONS: ReadonlySet<string> = new Set<string>();

/**
 * Two indexes kept in step: URI → sessions (for fan-out) and session → URIs (for clearing a
 * session). `Map`s and `Set`s only, so no URI or id can collide with a prototype key.
 * Subscribing checks that the session lives, and its cap, in the same turn as it stores; the
 * session store clears a session's subscriptions inside its `end`.
 */
export class InMemorySubscriptionStore implements McpSubscriptionStore {
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();
  private pairs = 0;

  constructor(private readonly sessions: InMemorySessionStore) {
    sessions.clearOnEnd((sessionId) => this.clearSession(sessionId));
  }

  async subscribe(sessionId: string, uri: string, limit = Infinity): Promise<boolean | 'full'> {
    if (!this.sessions.isAlive(sessionId)) return false;
    let uris = this.bySession.get(sessionId);
    if (uris?.has(uri)) return true;
    if ((uris?.size ?? 0) >= limit) return 'full';
    if (!uris) this.bySession.set(sessionId, (uris = new Set<string>()));
    uris.add(uri);
    let subscribers = this.byUri.get(uri);
    if (!subscribers) this.byUri.set(uri, (subscribers = new Set<string>()));
    subscribers.add(sessionId);
    this.pairs += 1;
    return true;
  }

  async unsubscribe(sessionId: string, uri: string): Promise<void> {
    const uris = this.bySession.get(sessionId);
    if (!uris?.delete(uri)) return;
    if (uris.size === 0) this.bySession.delete(sessionId);
    this.removeFromUri(uri, sessionId);
    this.pairs -= 1;
  }

  /** The live set (no copy per notification): the notifier reads it synchronously. */
  async subscribersOf(uri: string): Promise<Iterable<string>> {
    return this.byUri.get(uri) ?? NO_SESSIONS;
  }

  async subscriptionsOf(sessionId: string): Promise<readonly string[]> {
    const uris = this.bySession.get(sessionId);
    return uris ? [...uris] : [];
  }

  async count(): Promise<number> {
    return this.pairs;
  }

  private clearSession(sessionId: string): void {
    const uris = this.bySession.get(sessionId);
    if (!uris) return;
    this.bySession.delete(sessionId);
    for (const uri of uris) this.removeFromUri(uri, sessionId);
    this.pairs -= uris.size;
  }

  private removeFromUri(uri: string, sessionId: string): void {
    const sessions = this.byUri.get(uri);
    if (!sessions) return;
    sessions.delete(sessionId);
    if (sessions.size === 0) this.byUri.delete(uri);
  }
}
