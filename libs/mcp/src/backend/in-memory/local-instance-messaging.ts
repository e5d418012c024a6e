import { randomBytes } from 'node:crypto';
import type { McpInstanceMessageHandler, McpInstanceMessaging } from '../mcp-instance-messaging.js';
import { McpLogger } from '../../logging/mcp-logger.js';

/**
 * Messaging of a deployment of one instance: a message to this instance is delivered in
 * process (asynchronously, as a shared backend would), a broadcast reaches nobody.
 */
export class LocalInstanceMessaging implements McpInstanceMessaging {
  private readonly logger = new McpLogger('McpMessaging');
  private readonly handlers = new Map<string, McpInstanceMessageHandler>();

  constructor(readonly instanceId: string = randomBytes(6).toString('base64url')) {}

  send(target: string, topic: string, payload: unknown): void {
    if (target !== this.instanceId) return;
    const handler = this.handlers.get(topic);
    if (!handler) return;
    queueMicrotask(() => {
      try {
        handler(payload, this.instanceId);
      } catch (error) {
        this.logger.error(`A ${topic} message failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }

  on(topic: string, handler: McpInstanceMessageHandler): void {
    this.handlers.set(topic, handler);
  }
}
