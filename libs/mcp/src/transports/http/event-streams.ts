import { Inject, Injectable } from '@nestjs/common';
import { CallerSlots } from '../../auth/caller-slots.js';
import type { McpPrincipal } from '../../auth/mcp-principal.js';
import { closeWhenExpired } from '../../auth/token-expiry.js';
import { McpStreamQuotaExceededException } from '../../errors/mcp-transport.exceptions.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import type { SseStream } from './sse.stream.js';

/**
 * The bounds of this instance's SSE streams that the streams themselves do not know: places per
 * caller under `maxStreamsPerCaller` for the streams a client holds open (the standalone GET
 * stream, legacy HTTP+SSE), and their end when the access token that opened them expires. Both
 * are tied to the stream's one close event, so every way a stream ends (the client leaves, the
 * server closes it, a slow consumer is cut off, the session ends, the instance shuts down) gives
 * its place back and stops its timer.
 */
@Injectable()
export class McpEventStreams {
  private readonly perCaller: CallerSlots;

  constructor(@Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions) {
    this.perCaller = new CallerSlots(options.maxStreamsPerCaller);
  }

  /**
   * Takes a place for `stream` of `caller` (`callerKeyOf`), given back when it closes; the
   * streams under one `key` (the GETs of one session) share a place. Throws
   * `McpStreamQuotaExceededException` when the caller holds `maxStreamsPerCaller` others.
   */
  hold(stream: SseStream, caller: string | undefined, key?: string): void {
    const release = this.perCaller.take(caller, key);
    if (!release) throw new McpStreamQuotaExceededException(this.options.maxStreamsPerCaller);
    stream.onClose(release);
  }

  /**
   * Ends `stream` when the access token of `principal` expires (nothing without one). No event
   * is defined for it: the stream simply ends, and the client reconnects with a fresh token.
   */
  endWithToken(stream: SseStream, principal: McpPrincipal | undefined): void {
    const expiry = closeWhenExpired(principal, () => stream.close());
    stream.onClose(() => expiry.cancel());
  }

  /** Places `caller` holds. */
  heldBy(caller: string): number {
    return this.perCaller.count(caller);
  }

  /** Places held by every caller together. */
  get size(): number {
    return this.perCaller.size;
  }
}
