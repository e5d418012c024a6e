import { Inject, Injectable } from '@nestjs/common';
import { MCP_SESSION_STORE } from '../backend/mcp-backend.tokens.js';
import type { McpSessionStore } from '../backend/mcp-session.store.js';

/** Counters of the running server, for health and metrics endpoints. @publicApi */
@Injectable()
export class McpServerStats {
  private served = 0;
  readonly startedAt = Date.now();

  constructor(@Inject(MCP_SESSION_STORE) private readonly sessions: McpSessionStore) {}

  /** JSON-RPC requests answered by this instance since startup (notifications are not counted). */
  get requestsServed(): number {
    return this.served;
  }

  /** Sessions open now (in the backend: on every instance, when it is shared). */
  openSessions(): Promise<number> {
    return this.sessions.count();
  }

  /** @internal Called by the dispatcher once per request. */
  recordRequest(): void {
    this.served += 1;
  }
}
