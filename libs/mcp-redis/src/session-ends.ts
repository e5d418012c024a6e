import { Logger } from '@nestjs/common';
import type { McpSessionEndListener, McpSessionEndReason } from '@nest-mcp/server';
import { describeError } from './redis-errors.js';

/**
 * The session-end listeners of this instance. An end made here is announced at once, when its
 * script returns; an end made elsewhere arrives on the `bus` channel. Each listener's failure,
 * sync or async, is logged and never reaches the code that ended the session.
 */
export class SessionEnds {
  private readonly logger = new Logger('McpRedis');
  private readonly listeners: McpSessionEndListener[] = [];

  listen(listener: McpSessionEndListener): void {
    this.listeners.push(listener);
  }

  announce(sessionId: string, reason: McpSessionEndReason): void {
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
