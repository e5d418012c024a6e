import { Inject, Injectable } from '@nestjs/common';
import { MCP_SUBSCRIPTION_STORE, type McpSubscriptionStore } from '../subscriptions/mcp-subscription.store.js';
import { MCP_NOTIFICATION_BUS, type McpNotificationBus } from './mcp-notification.bus.js';
import { promptListChanged, resourceListChanged, resourceUpdated, toolListChanged } from './notification.messages.js';

/**
 * Sends change notifications to clients. Inject it anywhere: a tool that modifies data, a
 * scheduled job, a message consumer.
 *
 * @example
 * ```ts
 * constructor(private readonly notifications: ResourceNotificationService) {}
 *
 * @McpTool({ name: 'notes.update', description: 'Updates a note', input: UpdateNoteDto })
 * async update(@McpArgs() { id, body }: UpdateNoteDto) {
 *   this.store.update(id, body);
 *   await this.notifications.notifyResourceUpdated(`db://notes/${id}`);
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class ResourceNotificationService {
  constructor(
    @Inject(MCP_SUBSCRIPTION_STORE) private readonly subscriptions: McpSubscriptionStore,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
  ) {}

  /**
   * Sends `notifications/resources/updated { uri }` to exactly the sessions subscribed to
   * this URI (exact, case-sensitive match). Sessions without an open stream get it when they
   * reconnect with `Last-Event-ID`.
   * @returns the number of subscribed sessions it was delivered or queued to.
   */
  async notifyResourceUpdated(uri: string): Promise<number> {
    return this.bus.publish(await this.subscriptions.subscribersOf(uri), resourceUpdated(uri));
  }

  /**
   * Sends `notifications/resources/list_changed` to every session with an open stream.
   * (Runtime registration sends it for you, coalesced.)
   * @returns the number of sessions reached.
   */
  notifyResourceListChanged(): Promise<number> {
    return this.bus.broadcast(resourceListChanged());
  }

  /** Sends `notifications/tools/list_changed` to every session with an open stream. */
  notifyToolListChanged(): Promise<number> {
    return this.bus.broadcast(toolListChanged());
  }

  /** Sends `notifications/prompts/list_changed` to every session with an open stream. */
  notifyPromptListChanged(): Promise<number> {
    return this.bus.broadcast(promptListChanged());
  }
}
