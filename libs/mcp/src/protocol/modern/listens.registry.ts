import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { MCP_FANOUT } from '../../backend/mcp-backend.tokens.js';
import type { McpFanout, McpListener } from '../../backend/mcp-fanout.js';
import { CallerSlots } from '../../auth/caller-slots.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import { closeWhenExpired } from '../../auth/token-expiry.js';
import { McpListenQuotaExceededException, McpTooManyListensException } from '../../errors/mcp-modern.exceptions.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp.constants.js';

/** An open listen: it ends when its request is cancelled, its token expires or the server shuts down. */
export interface OpenListen {
  /** Resolves when the server ends the listen (token expiry, shutdown); rejects with the reason when `signal` aborts. */
  readonly ended: Promise<void>;
}

/** Who opened a listen: the caller its place is counted for, and the principal whose token it lives on. */
export interface ListenOwner {
  /** Who `maxListensPerCaller` counts (`callerKeyOf`); `undefined` (stdio) is not counted. */
  readonly caller?: string;
  /** The principal of the request that opened it: the listen ends when its access token expires. */
  readonly principal?: McpPrincipal;
}

/**
 * The `subscriptions/listen` streams of this instance: their caps (`maxListens`, and
 * `maxListensPerCaller` per caller), their registration with the fan-out, and their
 * end. A listen the client drops (its signal aborts) is let go at once; one the server ends (its
 * access token expired, or a graceful shutdown) is answered with its completion result first.
 * Every end gives its places back and stops its expiry timer.
 */
@Injectable()
export class McpListens implements BeforeApplicationShutdown {
  private readonly open = new Set<() => void>();
  private readonly perCaller: CallerSlots;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_FANOUT) private readonly fanout: McpFanout,
  ) {
    this.perCaller = new CallerSlots(options.maxListensPerCaller);
  }

  get size(): number {
    return this.open.size;
  }

  /** Listens `caller` holds here. */
  heldBy(caller: string): number {
    return this.perCaller.count(caller);
  }

  /**
   * Throws `McpTooManyListensException` when the instance holds `maxListens` already, and
   * `McpListenQuotaExceededException` when `caller` holds `maxListensPerCaller`.
   */
  assertRoom(caller?: string): void {
    if (this.open.size >= this.options.maxListens) throw new McpTooManyListensException(this.options.maxListens);
    if (caller !== undefined && this.perCaller.count(caller) >= this.options.maxListensPerCaller) {
      throw new McpListenQuotaExceededException(this.options.maxListensPerCaller);
    }
  }

  /** Registers a listener until `signal` aborts, the owner's token expires or the server shuts down. */
  start(listener: McpListener, signal: AbortSignal, owner: ListenOwner = {}): OpenListen {
    this.assertRoom(owner.caller);
    const release = this.perCaller.take(owner.caller);
    if (!release) throw new McpListenQuotaExceededException(this.options.maxListensPerCaller);
    const remove = this.fanout.addListener(listener);
    let expiry: { cancel(): void } | undefined;
    let finish!: () => void;
    const ended = new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        finish();
        reject(signal.reason instanceof Error ? signal.reason : new Error('The listen was cancelled'));
      };
      finish = () => {
        this.open.delete(endGracefully);
        remove();
        release();
        expiry?.cancel();
        signal.removeEventListener('abort', onAbort);
      };
      const endGracefully = () => {
        finish();
        resolve();
      };
      this.open.add(endGracefully);
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      // The token was checked when the listen opened; nothing renews it on this stream.
      expiry = closeWhenExpired(owner.principal, endGracefully);
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
