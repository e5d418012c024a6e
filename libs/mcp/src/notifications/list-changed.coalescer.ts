import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_NOTIFICATION_BUS, type McpNotificationBus } from './mcp-notification.bus.js';

/**
 * Folds bursts of list changes (a thousand registrations in a loop) into one
 * `list_changed` per kind per debounce window.
 */
@Injectable()
export class ListChangedCoalescer implements OnApplicationShutdown {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
  ) {}

  /** Schedules one broadcast of `method` unless one is already scheduled. */
  schedule(method: string): void {
    if (this.timers.has(method)) return;
    const timer = setTimeout(() => {
      this.timers.delete(method);
      void this.bus.broadcast({ jsonrpc: '2.0', method });
    }, this.options.listChangedDebounceMs);
    timer.unref();
    this.timers.set(method, timer);
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
