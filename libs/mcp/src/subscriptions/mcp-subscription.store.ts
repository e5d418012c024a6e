/**
 * Which session is subscribed to which exact resource URI. Every method is async so that a
 * shared store (Redis: a set per session plus a reverse set per URI) can replace the
 * in-memory one.
 * @publicApi
 */
export interface McpSubscriptionStore {
  /** Idempotent. */
  subscribe(sessionId: string, uri: string): Promise<void>;
  /** Idempotent; safe for unknown sessions and URIs. */
  unsubscribe(sessionId: string, uri: string): Promise<void>;
  /**
   * The sessions subscribed to exactly this URI. Cost: O(subscribers of the URI). The result
   * may be a live view: read it before the next change.
   */
  subscribersOf(uri: string): Promise<Iterable<string>>;
  /** The URIs a session is subscribed to. */
  subscriptionsOf(sessionId: string): Promise<readonly string[]>;
  /** Removes every subscription of a session. Cost: O(subscriptions of the session). */
  clearSession(sessionId: string): Promise<void>;
  /** Number of (session, URI) pairs, for metrics and tests. */
  count(): Promise<number>;
}

/** DI token of the subscription store. */
export const MCP_SUBSCRIPTION_STORE = Symbol('MCP_SUBSCRIPTION_STORE');
