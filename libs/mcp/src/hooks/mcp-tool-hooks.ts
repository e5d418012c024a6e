import { Injectable } from '@nestjs/common';
import type {
  McpToolCompletedEvent,
  McpToolFailedEvent,
  McpToolHookHandler,
  McpToolInvokingEvent,
  McpToolRejectedEvent,
} from './mcp-tool-hook.interface.js';
import { McpLogger } from '../logging/mcp-logger.js';

/** The registered tool hooks, run in order; a hook that throws is logged and skipped. */
@Injectable()
export class McpToolHooks {
  private readonly logger = new McpLogger('McpToolHooks');
  private readonly hooks: McpToolHookHandler[] = [];

  add(hook: McpToolHookHandler): void {
    this.hooks.push(hook);
  }

  get size(): number {
    return this.hooks.length;
  }

  invoking(event: McpToolInvokingEvent): Promise<void> {
    return this.run('onToolInvoking', event);
  }

  completed(event: McpToolCompletedEvent): Promise<void> {
    return this.run('onToolCompleted', event);
  }

  failed(event: McpToolFailedEvent): Promise<void> {
    return this.run('onToolFailed', event);
  }

  rejected(event: McpToolRejectedEvent): Promise<void> {
    return this.run('onToolRejected', event);
  }

  private async run<K extends keyof McpToolHookHandler>(
    callback: K,
    event: Parameters<NonNullable<McpToolHookHandler[K]>>[0],
  ): Promise<void> {
    for (const hook of this.hooks) {
      const fn = hook[callback] as ((e: typeof event) => void | Promise<void>) | undefined;
      if (!fn) continue;
      try {
        await fn.call(hook, event);
      } catch (error) {
        this.logger.error(
          `${hook.constructor.name}.${callback} failed for tool '${event.tool}': ${(error as Error)?.message ?? String(error)}`,
        );
      }
    }
  }
}
