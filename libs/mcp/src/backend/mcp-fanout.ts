/** The lists whose changes clients can hear about. @publicApi */
export type McpListKind = 'resources' | 'tools' | 'prompts';

/** How many recipients a notification reached (or was queued for). @publicApi */
export interface McpDeliveryReport {
  /** Legacy-era sessions (subscribed with `resources/subscribe`, or holding a stream). */
  readonly sessions: number;
  /** Modern-era `subscriptions/listen` streams. */
  readonly listeners: number;
}

/**
 * A modern-era `subscriptions/listen` stream held by this instance: what it asked for (already
 * reduced to what was honoured) and how to write to it. Nothing is replayed to it: it lives as
 * long as its connection.
 * @publicApi
 */
export interface McpListener {
  /** The exact resource URIs it listens to. */
  readonly resources: ReadonlySet<string>;
  /** The lists whose changes it listens to. */
  readonly lists: ReadonlySet<McpListKind>;
  /** Writes one notification on the stream, stamped with the listen's subscription id. */
  notify(method: string, params?: Record<string, unknown>): void;
}

/**
 * Fan-out of the notifications every instance must hear: a resource changed, a list changed.
 * A backend seam (see `McpBackend`): it takes a notification once, on whichever instance it was
 * raised, and brings it to its audience on every instance: the legacy sessions (through their
 * standalone streams, `McpLiveStreams`, replayable after `Last-Event-ID`) and the modern
 * listeners each instance holds. The in-process implementation writes to them directly; a
 * shared one (Redis) appends once to a shared log and publishes once, and each instance writes
 * to the streams and listeners it holds.
 *
 * The path is hot: work per notification is proportional to its audience, and a message is
 * serialized once however many recipients it has.
 * @publicApi
 */
export interface McpFanout {
  /**
   * `notifications/resources/updated { uri }` to exactly its audience: each legacy session
   * subscribed to `uri` (replayable after `Last-Event-ID`, and sent on its live stream) and each
   * modern listener of `uri` on any instance. Cost: O(recipients of that URI), on the instances
   * that hold their streams (the Redis backend does a constant amount of work in Redis).
   */
  resourceUpdated(uri: string): Promise<McpDeliveryReport>;
  /**
   * `notifications/<kind>/list_changed` to every legacy session that holds (or held) a
   * standalone stream, recorded so that a client resuming with `Last-Event-ID` gets what it
   * missed, and to every modern listener of that list.
   */
  listChanged(kind: McpListKind): Promise<McpDeliveryReport>;
  /** Adds a modern listener on this instance; the returned function removes it. */
  addListener(listener: McpListener): () => void;
}
