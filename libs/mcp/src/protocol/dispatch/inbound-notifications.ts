import { Injectable } from '@nestjs/common';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { isValidId, type JsonRpcNotification, type JsonRpcResponse } from '../../model/json-rpc.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpErrorMapper } from '../mcp-error.mapper.js';
import { McpInflightRequests } from '../inflight-requests.js';
import { McpClientRequests } from '../../client-requests/mcp-client-requests.js';
import { McpListens } from '../listen/listens.registry.js';
import { callerKeyOf } from '../../auth/caller-key.js';

/**
 * What a client sends that is never answered: notifications (`notifications/cancelled` ends
 * the request it names, `notifications/initialized` marks its session), and its answers to the
 * server's own requests.
 */
@Injectable()
export class McpInboundNotifications {
  constructor(
    private readonly sessions: McpSessionManager,
    private readonly inflight: McpInflightRequests,
    private readonly listens: McpListens,
    private readonly clientRequests: McpClientRequests,
    private readonly errors: McpErrorMapper,
  ) {}

  /** An answer to a server→client request, taken only from the session that was asked. */
  answer(response: JsonRpcResponse, ctx: McpDispatchContext): void {
    if (ctx.session) this.clientRequests.receive(ctx.session.id, response, ctx.auth);
  }

  /** Notifications are never answered; a failure handling one is logged, not sent. */
  async notification(notification: JsonRpcNotification, ctx: McpDispatchContext): Promise<void> {
    const session = ctx.session;
    try {
      if (notification.method === 'notifications/cancelled') {
        const scope = ctx.connectionId ?? session?.id;
        const { requestId, reason } = notification.params ?? {};
        const why = typeof reason === 'string' ? reason : undefined;
        // Unknown, finished or malformed ids are ignored, as the specification asks.
        if (!isValidId(requestId)) return;
        if (scope !== undefined) this.inflight.cancel(scope, requestId, why);
        else {
          // Stateless HTTP (the modern era): a listen of the same caller, named by its id.
          const caller = callerKeyOf(ctx.auth, ctx.request);
          if (caller !== undefined) this.listens.cancel(caller, requestId, why);
        }
      } else if (notification.method === 'notifications/initialized' && session && !session.initialized) {
        session.initialized = true;
        await this.sessions.update(session.id, { initialized: true });
      }
    } catch (error) {
      this.errors.toException(error, notification.method);
    }
    // Other notifications (and any "notification" naming a request method) are ignored: a
    // message without an id never runs a handler.
  }
}
