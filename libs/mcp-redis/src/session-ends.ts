import { McpLogger, type McpSessionEndListener, type McpSessionEndReason } from '@nest-mcp/server/backend';
import { describeError } from './redis-errors.js';

/**
 * Ends announced lately, remembered so that one heard twice is announced once: a heartbeat that
 * found a held session gone may answer before the session's `end` message arrives. Far more
 * ends than can happen between the two; ids are never reused, so forgetting old ones is safe.
 */
const RECENT_ENDS = 10_000;

/**
 * The session-end listeners of this instance. An end made here is announced at once, when its
 * script returns; an end made elsewhere arrives on the `bus` channel, or, when that message was
 * lost, is found by the heartbeat or the resubscribe after a reconnect. Each end is announced
 * once. Each listener's failure, sync or async, is logged and never reaches the code that ended
 * the session.
 */
export class SessionEnds {
  private readonly logger = new McpLogger('McpRedis');
  private readonly listeners: McpSessionEndListener[] = [];
  /** Oldest first (a Set keeps insertion order). */
  private readonly recent = new Set<string>();

  listen(listener: McpSessionEndListener): void {
    this.listeners.push(listener);
  }

  announce(sessionId: string, reason: McpSessionEndReason): void {
    if (this.recent.has(sessionId)) return;
    this.recent.add(sessionId);
    if (this.recent.size > RECENT_ENDS) this.recent.delete(this.recent.values().next().value!);
    const failed = (error: unknown) => this.logger.error(`A session end listener failed: ${describeError(error)}`);
    for (const listener of this.listeners) {
      try {
        void Promise.resolve(listener(sessionId, reason)).catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  }
}
