import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { MCP_SUBSCRIPTION_STORE, type McpSubscriptionStore } from './mcp-subscription.store.js';

/** Clears a session's subscriptions whenever it ends: DELETE, idle expiry, the sweep, shutdown. */
@Injectable()
export class SubscriptionCleanup implements OnModuleInit {
  constructor(
    private readonly sessions: McpSessionManager,
    @Inject(MCP_SUBSCRIPTION_STORE) private readonly subscriptions: McpSubscriptionStore,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => this.subscriptions.clearSession(sessionId));
  }
}
