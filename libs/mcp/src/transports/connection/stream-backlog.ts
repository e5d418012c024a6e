/**
 * When a stream's unsent backlog makes its client a slow consumer: the one rule every streaming
 * transport applies (WebSocket, the Streamable HTTP GET stream and POST answers, legacy SSE).
 *
 * A message larger than the bound is not a slow client: a 3 MiB answer sits in the backlog for
 * as long as the network needs to carry it, and the next message written meanwhile (the answer to
 * a ping sent right after) must not close a client that reads. So the bound is measured without
 * the one message that took the backlog over it: a client is slow once its backlog passes the
 * bound by more than that message's size, which only happens when it leaves more than a bound's
 * worth unread besides. Memory per stream stays within the bound plus one message, which the
 * server held in full anyway while it serialized it.
 *
 * Sizes are in the unit the stream counts its backlog in (`writableLength` counts a string chunk
 * by its length); a message measured short makes the rule stricter, never looser.
 */
export class StreamBacklog {
  /** The backlog tolerated now: the bound, plus the message that crossed it while it drains. */
  #ceiling: number;

  constructor(readonly maxBytes: number) {
    StreamBacklog.assertBound(maxBytes);
    this.#ceiling = maxBytes;
  }

  /** Throws the RangeError the constructor throws for `maxBytes`, for a stream that creates its backlog later. */
  static assertBound(maxBytes: number): void {
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
      throw new RangeError(`maxBufferedBytes must be a positive integer, got ${String(maxBytes)}`);
    }
  }

  /**
   * Whether a stream whose backlog is `backlogBytes` right after a message of `messageBytes`
   * was queued still serves a reading client; false means a slow consumer, to be cut off.
   */
  admits(backlogBytes: number, messageBytes: number): boolean {
    if (backlogBytes <= this.maxBytes) {
      this.#ceiling = this.maxBytes;
      return true;
    }
    // The backlog was within the bound before this message: it alone took it over.
    if (backlogBytes - messageBytes <= this.maxBytes) this.#ceiling = this.maxBytes + messageBytes;
    return backlogBytes <= this.#ceiling;
  }
}
