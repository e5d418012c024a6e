import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { MCP_NOTIFICATION_BUS } from '../../backend/mcp-backend.tokens.js';
import type { McpListener, McpNotificationBus } from '../../backend/mcp-notification.bus.js';
import { McpTooManyListensException } from '../../errors/mcp-modern.exceptions.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';

/** An open listen: it ends when its request is cancelled or the server shuts down. */
export interface OpenListen {
  /** Resolves when the server ends the listen (a graceful shutdown); rejects with the reason when `signal` aborts. */
  readonly ended: Promise<void>;
}

/**
 * The `subscriptions/listen` streams of this instance: their cap (`maxListens`), their
 * registration with the notification bus, and their graceful end at shutdown (the listen
 * request is answered with its completion result before the server closes).
 */
@Injectable()
export class McpListens implements BeforeApplicationShutdown {
  private readonly open = new Set<() => void>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Throws `McpTooManyListensException` when the instance holds `maxListens` already. */
  assertRoom(): void {
    if (this.open.size >= this.options.maxListens) throw new McpTooManyListensException(this.options.maxListens);
  }

  /** Registers a listener until `signal` aborts or the server shuts down. */
  start(listener: McpListener, signal: AbortSignal): OpenListen {
    this.assertRoom();
    const remove = this.bus.addListener(listener);
    let finish!: () => void;
    const ended = new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        finish();
        reject(signal.reason instanceof Error ? signal.reason : new Error('The listen was cancelled'));
      };
      finish = () => {
        this.open.delete(endGracefully);
        remove();
        signal.removeEventListener('abort', onAbort);
      };
      const endGracefully = () => {
        finish();
        resolve();
      };
      this.open.add(endGracefully);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return { ended };
  }

  /** Ends every listen with its completion result, and lets those answers go out. */
  async endAll(): Promise<void> {
    for (const end of [...this.open]) end();
    await new Promise((resolve) => setImmediate(resolve));
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.endAll();
  }
}
