/**
 * Which session is subscribed to which exact resource URI: a backend seam (see `McpBackend`).
 * Every method is async so that a shared store (Redis: a set per session plus a reverse set per
 * URI) can stand where the in-memory one does. A session's subscriptions are removed by the
 * session store's `end`, in the same operation that ends the session.
 * @publicApi
 */
export interface McpSubscriptionStore {
  /**
   * Idempotent. Conditional on the session: false (and nothing stored) when the session has
   * ended, so a subscribe racing a DELETE never outlives it. With `limit`, atomic with that cap
   * too: `'full'` (and nothing stored) when the session is subscribed to `limit` URIs already and
   * `uri` is not one of them, so concurrent subscribes, on any instance, never pass it.
   */
  subscribe(sessionId: string, uri: string, limit?: number): Promise<boolean | 'full'>;
  /** Idempotent; safe for unknown sessions and URIs. */
  unsubscribe(sessionId: string, uri: string): Promise<void>;
  /**
   * The sessions subscribed to exactly this URI. Cost: O(subscribers of the URI). The result
   * may be a live view: read it before the next change.
   */
  subscribersOf(uri: string): Promise<Iterable<string>>;
  /** The URIs a session is subscribed to. */
  subscriptionsOf(sessionId: string): Promise<readonly string[]>;
  /** Number of (session, URI) pairs, for metrics and tests. */
  count(): Promise<number>;
}
