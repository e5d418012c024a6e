import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import type { McpConnection } from '../session/mcp-session.interface.js';
import { MCP_SUBSCRIPTION_STORE, type McpSubscriptionStore } from '../subscriptions/mcp-subscription.store.js';
import type { McpNotificationBus } from './mcp-notification.bus.js';
import { resourceListChanged, resourceUpdated } from './notification.messages.js';
import { SessionOutbox } from './session-outbox.js';

/** What this instance keeps for delivering to one session. */
interface SessionDelivery {
  readonly outbox: SessionOutbox;
  /** URIs with an update queued while the session had no live stream (coalesced). */
  pending?: Set<string>;
}

/**
 * The single-instance notification bus: a bounded outbox per session (replay on
 * `Last-Event-ID`) in front of the live stream this instance holds for it. A message is
 * serialized once, however many sessions it goes to.
 *
 * Slow consumers: the stream itself closes when its write buffer passes its cap (after a
 * `retry:` hint); the outbox keeps the last `replayBufferSize` messages, so the client resumes
 * where it stopped. Memory per session is bounded by both caps.
 */
@Injectable()
export class LocalNotificationBus implements McpNotificationBus, OnModuleInit {
  private readonly deliveries = new Map<string, SessionDelivery>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly sessions: McpSessionManager,
    @Inject(MCP_SUBSCRIPTION_STORE) private readonly subscriptions: McpSubscriptionStore,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => {
      this.deliveries.delete(sessionId);
    });
  }

  async publish(sessionIds: Iterable<string>, message: object): Promise<number> {
    // Serialized on the first recipient: a URI nobody subscribed to costs no serialization.
    let json: string | undefined;
    let uri: string | undefined;
    let reached = 0;
    for (const sessionId of sessionIds) {
      if (json === undefined) {
        json = JSON.stringify(message);
        uri = updatedUri(message);
      }
      this.deliver(sessionId, json, uri);
      reached++;
    }
    return reached;
  }

  async broadcast(message: object): Promise<number> {
    const json = JSON.stringify(message);
    let reached = 0;
    for (const sessionId of this.sessions.connectedSessionIds()) {
      this.deliver(sessionId, json);
      reached++;
    }
    return reached;
  }

  async attach(sessionId: string, connection: McpConnection, lastEventId?: string): Promise<void> {
    const delivery = this.deliveryOf(sessionId);
    const missed = lastEventId === undefined ? [] : delivery.outbox.after(lastEventId);
    this.sessions.attachConnection(sessionId, connection);
    delivery.pending = undefined;
    if (missed) {
      for (const entry of missed) connection.sendJson(entry.json, entry.eventId);
      return;
    }
    // Unknown, foreign or dropped id: the client may have missed anything, so tell it what
    // to re-read instead of failing the reconnect.
    for (const uri of await this.subscriptions.subscriptionsOf(sessionId)) {
      this.deliver(sessionId, JSON.stringify(resourceUpdated(uri)));
    }
    this.deliver(sessionId, JSON.stringify(resourceListChanged()));
  }

  private deliver(sessionId: string, json: string, coalesceUri?: string): void {
    const connection = this.sessions.getConnection(sessionId);
    const delivery = this.deliveryOf(sessionId);
    if (!connection && coalesceUri !== undefined) {
      delivery.pending ??= new Set<string>();
      if (delivery.pending.has(coalesceUri)) return;
      delivery.pending.add(coalesceUri);
    }
    const eventId = delivery.outbox.append(json);
    connection?.sendJson(json, eventId);
  }

  private deliveryOf(sessionId: string): SessionDelivery {
    let delivery = this.deliveries.get(sessionId);
    if (!delivery) {
      delivery = { outbox: new SessionOutbox(this.options.replayBufferSize) };
      this.deliveries.set(sessionId, delivery);
    }
    return delivery;
  }
}

const updatedUri = (message: object): string | undefined => {
  const { method, params } = message as { method?: string; params?: { uri?: unknown } };
  return method === 'notifications/resources/updated' && typeof params?.uri === 'string' ? params.uri : undefined;
};
