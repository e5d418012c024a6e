import { Injectable } from '@nestjs/common';
import type { McpSubscriptionStore } from './mcp-subscription.store.js';

/**
 * Two indexes kept in step: URI → sessions (for fan-out) and session → URIs (for clearing a
 * session). `Map`s and `Set`s only, so no URI or id can collide with a prototype key.
 */
const NO_SESSIONS: ReadonlySet<string> = new Set<string>();

@Injectable()
export class InMemorySubscriptionStore implements McpSubscriptionStore {
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();
  private pairs = 0;

  async subscribe(sessionId: string, uri: string): Promise<void> {
    const uris = this.bySession.get(sessionId) ?? new Set<string>();
    if (uris.has(uri)) return;
    uris.add(uri);
    this.bySession.set(sessionId, uris);
    const sessions = this.byUri.get(uri) ?? new Set<string>();
    sessions.add(sessionId);
    this.byUri.set(uri, sessions);
    this.pairs += 1;
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

  async clearSession(sessionId: string): Promise<void> {
    const uris = this.bySession.get(sessionId);
    if (!uris) return;
    this.bySession.delete(sessionId);
    for (const uri of uris) this.removeFromUri(uri, sessionId);
    this.pairs -= uris.size;
  }

  async count(): Promise<number> {
    return this.pairs;
  }

  private removeFromUri(uri: string, sessionId: string): void {
    const sessions = this.byUri.get(uri);
    if (!sessions) return;
    sessions.delete(sessionId);
    if (sessions.size === 0) this.byUri.delete(uri);
  }
}
