import type { McpBackendSettings } from '../mcp-backend.interface.js';
import { DeliveryQueue } from '../delivery/delivery-queue.js';
import { ListenerIndex } from '../delivery/listener-index.js';
import { LIST_CHANGED_JSON, resourceUpdatedJson } from '../delivery/notification.messages.js';
import type { McpDeliveryReport, McpFanout, McpListener, McpListKind } from '../mcp-fanout.js';
import type { McpLiveStreams } from '../mcp-live-streams.js';
import type { McpConnection } from '../mcp-session.store.js';
import type { InMemorySessionStore } from './in-memory-session.store.js';
import type { InMemorySubscriptionStore } from './in-memory-subscription.store.js';
import { SessionOutbox } from './session-outbox.js';
import { McpLogger } from '../../logging/mcp-logger.js';

/** How soon a client whose stream was drained by a shutdown should reconnect. */
const DRAIN_RETRY_MS = 1_000;

/** What this instance keeps for delivering to one session; created only while it lives. */
interface SessionDelivery {
  readonly outbox: SessionOutbox;
  /** Keys of messages queued while the session had no live stream (coalesced: one each). */
  pending?: Set<string>;
}

/**
 * Fan-out and live streams in one process, on one state: the live stream of each session and a
 * bounded outbox per session (replay on `Last-Event-ID`, resync on an unknown id), which every
 * notification for the session goes through, and the modern listeners. A message is serialized
 * once, however many sessions it goes to.
 *
 * Per-session state exists only while the session lives: it is created by a write that finds
 * the session alive and dropped inside the session store's `end`, in the same turn, so nothing
 * is re-created for a session that ended.
 *
 * Slow consumers: a stream closes itself when its write buffer passes its cap (after a `retry:`
 * hint); the outbox keeps the last `replayBufferSize` messages, so the client resumes where it
 * stopped. Memory per session is bounded by both caps.
 */
export class InMemoryDelivery implements McpFanout, McpLiveStreams {
  private readonly logger = new McpLogger('McpDelivery');
  private readonly deliveries = new Map<string, SessionDelivery>();
  private readonly connections = new Map<string, McpConnection>();
  private readonly listeners = new ListenerIndex();
  private readonly queue = new DeliveryQueue((error) =>
    this.logger.error(`A delivery failed: ${error instanceof Error ? error.message : String(error)}`),
  );

  constructor(
    private readonly options: McpBackendSettings,
    private readonly sessions: InMemorySessionStore,
    private readonly subscriptions: InMemorySubscriptionStore,
  ) {
    sessions.clearOnEnd((sessionId) => this.ended(sessionId));
  }

  /** Deliveries accepted and not written yet (the notifying requests were answered first). */
  get queued(): number {
    return this.queue.size;
  }

  /** Counted now, delivered just after (the notifying request is answered first). */
  async resourceUpdated(uri: string): Promise<McpDeliveryReport> {
    const subscribers = (await this.subscriptions.subscribersOf(uri)) as ReadonlySet<string>;
    const report = { sessions: subscribers.size, listeners: this.listeners.countOf(uri) };
    if (report.sessions + report.listeners === 0) return report;
    this.queue.push(() => {
      // Serialized once, however many sessions it goes to.
      const json = resourceUpdatedJson(uri);
      for (const sessionId of subscribers) this.deliver(sessionId, json, uri);
      this.listeners.resourceUpdated(uri);
    });
    return report;
  }

  async listChanged(kind: McpListKind): Promise<McpDeliveryReport> {
    const report = { sessions: this.deliveries.size, listeners: this.listeners.countOfList(kind) };
    this.queue.push(() => {
      const json = LIST_CHANGED_JSON[kind];
      // Every session with an outbox, not only those connected now: one that resumes with
      // Last-Event-ID must get the list changes made while it was away.
      for (const sessionId of this.deliveries.keys()) this.deliver(sessionId, json, json);
      this.listeners.listChanged(kind);
    });
    return report;
  }

  /** Resolves once every notification accepted so far was delivered (tests, diagnostics). */
  delivered(): Promise<void> {
    return this.queue.drained();
  }

  addListener(listener: McpListener): () => void {
    return this.listeners.add(listener);
  }

  async attach(sessionId: string, connection: McpConnection, lastEventId?: string): Promise<boolean> {
    // What was notified before a resume happened while the client was away: it lands in the
    // outbox (coalesced per URI) and comes back as replay, not as live writes after it.
    if (lastEventId !== undefined) await this.queue.drained();
    const delivery = this.deliveryOf(sessionId);
    if (!delivery) return false;
    const missed = lastEventId === undefined ? [] : delivery.outbox.after(lastEventId);
    const previous = this.connections.get(sessionId);
    this.connections.set(sessionId, connection);
    if (previous && previous !== connection) previous.close();
    delivery.pending = undefined;
    if (missed) {
      for (const entry of missed) connection.send(entry.json, entry.eventId);
      return true;
    }
    // Unknown, foreign or dropped id: the client may have missed anything, so tell it what
    // to re-read instead of failing the reconnect.
    for (const uri of await this.subscriptions.subscriptionsOf(sessionId)) {
      this.deliver(sessionId, resourceUpdatedJson(uri));
    }
    for (const json of Object.values(LIST_CHANGED_JSON)) this.deliver(sessionId, json);
    return true;
  }

  detach(sessionId: string, connection: McpConnection): void {
    if (this.connections.get(sessionId) !== connection) return;
    this.connections.delete(sessionId);
    // The stream kept the session alive until now; its idle clock restarts (the client may
    // reconnect, or be gone for good).
    this.sessions.touch([sessionId], Date.now()).catch(() => undefined);
  }

  holds(sessionId: string): boolean {
    return this.connections.has(sessionId);
  }

  send(sessionId: string, json: string): boolean {
    return this.connections.get(sessionId)?.send(json) ?? false;
  }

  heldSessions(): Iterable<string> {
    return this.connections.keys();
  }

  async drain(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    for (const connection of open) connection.close(DRAIN_RETRY_MS);
  }

  /**
   * Appends to the session's outbox and writes to its live stream. Without a live stream, a
   * message whose `coalesceKey` is already queued is dropped (one pending update per URI).
   * False when the session has ended.
   */
  private deliver(sessionId: string, json: string, coalesceKey?: string): boolean {
    const delivery = this.deliveryOf(sessionId);
    if (!delivery) return false;
    const connection = this.connections.get(sessionId);
    if (!connection && coalesceKey !== undefined) {
      delivery.pending ??= new Set<string>();
      if (delivery.pending.has(coalesceKey)) return true;
      delivery.pending.add(coalesceKey);
    }
    const eventId = delivery.outbox.append(json);
    if (connection && !connection.send(json, eventId) && this.connections.get(sessionId) === connection) {
      // Closed (for being too slow, or underneath us): later messages queue until it resumes.
      this.connections.delete(sessionId);
    }
    return true;
  }

  /** The session's delivery state, created on first use; undefined once the session ended. */
  private deliveryOf(sessionId: string): SessionDelivery | undefined {
    let delivery = this.deliveries.get(sessionId);
    if (!delivery && this.sessions.isAlive(sessionId)) {
      delivery = { outbox: new SessionOutbox(this.options.replayBufferSize) };
      this.deliveries.set(sessionId, delivery);
    }
    return delivery;
  }

  private ended(sessionId: string): void {
    this.deliveries.delete(sessionId);
    const connection = this.connections.get(sessionId);
    this.connections.delete(sessionId);
    connection?.close();
  }
}
