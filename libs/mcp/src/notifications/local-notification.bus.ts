import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import type { McpConnection } from '../session/mcp-session.interface.js';
import { MCP_SUBSCRIPTION_STORE, type McpSubscriptionStore } from '../subscriptions/mcp-subscription.store.js';
import type { McpNotificationBus } from './mcp-notification.bus.js';
import { resourceListChanged, resourceUpdated } from './notification.messages.js';
import { SessionOutbox } from './session-outbox.js';

/**
 * The single-instance notification bus: a bounded outbox per session (replay on
 * `Last-Event-ID`) in front of the live stream this instance holds for it.
 *
 * Slow consumers: the stream itself closes when its write buffer passes its cap (after a
 * `retry:` hint); the outbox keeps the last `replayBufferSize` messages, so the client resumes
 * where it stopped. Memory per session is bounded by both caps.
 */
@Injectable()
export class LocalNotificationBus implements McpNotificationBus, OnModuleInit {
  private readonly outboxes = new Map<string, SessionOutbox>();
  /** URIs with an update queued for a session that has no live stream (coalesced). */
  private readonly pendingUpdates = new Map<string, Set<string>>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly sessions: McpSessionManager,
    @Inject(MCP_SUBSCRIPTION_STORE) private readonly subscriptions: McpSubscriptionStore,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => {
      this.outboxes.delete(sessionId);
      this.pendingUpdates.delete(sessionId);
    });
  }

  async publish(sessionIds: readonly string[], message: object): Promise<number> {
    const uri = updatedUri(message);
    let reached = 0;
    for (const sessionId of sessionIds) {
      if (this.deliver(sessionId, message, uri)) reached++;
    }
    return reached;
  }

  async broadcast(message: object): Promise<number> {
    let reached = 0;
    for (const sessionId of this.sessions.connectedSessionIds()) {
      if (this.deliver(sessionId, message)) reached++;
    }
    return reached;
  }

  async attach(sessionId: string, connection: McpConnection, lastEventId?: string): Promise<void> {
    const outbox = this.outboxOf(sessionId);
    const missed = lastEventId === undefined ? [] : outbox.after(lastEventId);
    this.sessions.attachConnection(sessionId, connection);
    this.pendingUpdates.delete(sessionId);
    if (missed) {
      for (const entry of missed) connection.send(entry.message, entry.eventId);
      return;
    }
    // Unknown, foreign or dropped id: the client may have missed anything, so tell it what
    // to re-read instead of failing the reconnect.
    for (const uri of await this.subscriptions.subscriptionsOf(sessionId)) {
      this.deliver(sessionId, resourceUpdated(uri));
    }
    this.deliver(sessionId, resourceListChanged());
  }

  private deliver(sessionId: string, message: object, coalesceUri?: string): boolean {
    const connection = this.sessions.getConnection(sessionId);
    if (!connection && coalesceUri !== undefined) {
      const pending = this.pendingUpdates.get(sessionId) ?? new Set<string>();
      if (pending.has(coalesceUri)) return true;
      pending.add(coalesceUri);
      this.pendingUpdates.set(sessionId, pending);
    }
    const entry = this.outboxOf(sessionId).append(message);
    connection?.send(message, entry.eventId);
    return true;
  }

  private outboxOf(sessionId: string): SessionOutbox {
    let outbox = this.outboxes.get(sessionId);
    if (!outbox) {
      outbox = new SessionOutbox(this.options.replayBufferSize);
      this.outboxes.set(sessionId, outbox);
    }
    return outbox;
  }
}

const updatedUri = (message: object): string | undefined => {
  const { method, params } = message as { method?: string; params?: { uri?: unknown } };
  return method === 'notifications/resources/updated' && typeof params?.uri === 'string' ? params.uri : undefined;
};
