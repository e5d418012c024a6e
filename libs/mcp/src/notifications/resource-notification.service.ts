import { Inject, Injectable } from '@nestjs/common';
import { MCP_FANOUT } from '../backend/mcp-backend.tokens.js';
import type { McpDeliveryReport, McpFanout } from '../backend/mcp-fanout.js';

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
  constructor(@Inject(MCP_FANOUT) private readonly fanout: McpFanout) {}

  /**
   * Sends `notifications/resources/updated { uri }` to exactly the audience of this URI (exact,
   * case-sensitive match), in both protocol eras: the legacy sessions subscribed to it (those
   * without an open stream get it when they reconnect with `Last-Event-ID`) and the modern
   * `subscriptions/listen` streams that asked for it.
   * @returns how many sessions and listeners it was delivered or queued to.
   */
  notifyResourceUpdated(uri: string): Promise<McpDeliveryReport> {
    return this.fanout.resourceUpdated(uri);
  }

  /**
   * Sends `notifications/resources/list_changed` to every session with a stream (recorded for
   * those that resume later) and every listener of the resource list. Runtime registration
   * sends it for you, coalesced.
   */
  notifyResourceListChanged(): Promise<McpDeliveryReport> {
    return this.fanout.listChanged('resources');
  }

  /** Sends `notifications/tools/list_changed` to every session with a stream and every listener of it. */
  notifyToolListChanged(): Promise<McpDeliveryReport> {
    return this.fanout.listChanged('tools');
  }

  /** Sends `notifications/prompts/list_changed` to every session with a stream and every listener of it. */
  notifyPromptListChanged(): Promise<McpDeliveryReport> {
    return this.fanout.listChanged('prompts');
  }
}
