import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { MCP_FANOUT } from '../backend/mcp-backend.tokens.js';
import type { McpFanout, McpListKind } from '../backend/mcp-fanout.js';
import { McpLogger } from '../logging/mcp-logger.js';
import { McpOptions, type McpOptionGroup } from '../mcp-option-groups.js';

/**
 * Folds bursts of list changes (a thousand registrations in a loop) into one
 * `list_changed` per kind per debounce window.
 */
@Injectable()
export class ListChangedCoalescer implements OnApplicationShutdown {
  private readonly logger = new McpLogger('McpNotifications');
  private readonly timers = new Map<McpListKind, NodeJS.Timeout>();

  constructor(
    @McpOptions('delivery') private readonly options: McpOptionGroup<'delivery'>,
    @Inject(MCP_FANOUT) private readonly fanout: McpFanout,
  ) {}

  /** Schedules one `list_changed` of `kind` unless one is already scheduled. */
  schedule(kind: McpListKind): void {
    if (this.timers.has(kind)) return;
    const timer = setTimeout(() => {
      this.timers.delete(kind);
      this.fanout.listChanged(kind).catch((error: unknown) => {
        this.logger.warn(
          `Could not send ${kind} list_changed: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    }, this.options.listChangedDebounceMs);
    timer.unref();
    this.timers.set(kind, timer);
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
