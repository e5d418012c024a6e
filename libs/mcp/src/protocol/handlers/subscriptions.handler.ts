import { Inject, Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpException } from '../../errors/mcp.exception.js';
import { McpResourceNotFoundException } from '../../errors/mcp-protocol.exceptions.js';
import { McpSessionNotFoundException, McpSessionRequiredException } from '../../errors/mcp-transport.exceptions.js';
import { McpResourceResolver } from '../../resources/mcp-resource.resolver.js';
import { MCP_SUBSCRIPTION_STORE } from '../../backend/mcp-backend.tokens.js';
import type { McpSubscriptionStore } from '../../backend/mcp-subscription.store.js';
import { JsonRpcErrorCode } from '../../model/json-rpc.js';
import { requireString } from './params.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpMethods } from './mcp-methods.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/**
 * `resources/subscribe` and `resources/unsubscribe`: exact URIs, per session (docs/subscriptions.md).
 * The wire profile picks the result shapes and the not-found code (docs/decisions/0001-wire-profiles.md).
 */
@Injectable()
export class SubscriptionsHandler implements McpMethodGroup {
  private readonly strict: boolean;
  private readonly limit: number;

  constructor(
    @McpOptions('sessions') options: McpOptionGroup<'sessions'>,
    private readonly resolver: McpResourceResolver,
    @Inject(MCP_SUBSCRIPTION_STORE) private readonly subscriptions: McpSubscriptionStore,
    methods: McpMethods,
  ) {
    methods.add(this);
    this.strict = options.wireProfile === 'strict';
    this.limit = options.maxSubscriptionsPerSession;
  }

  /** Subscribing needs resources (static, runtime or templates) to exist at all. */
  available(): boolean {
    return this.resolver.inUse;
  }

  methods(): Record<string, McpMethodFn> {
    return {
      'resources/subscribe': (params, ctx) => this.subscribe(params, ctx),
      'resources/unsubscribe': (params, ctx) => this.unsubscribe(params, ctx),
    };
  }

  private async subscribe(params: Record<string, unknown>, ctx: McpRequestContext) {
    const uri = requireString(params, 'uri');
    const sessionId = requireSession(ctx);
    // Patterns (`*`, `**`, regular expressions) are not supported: they are plain URIs that
    // do not exist, so they fail here like any other unknown URI.
    if (!(await this.resolver.exists(uri, ctx))) throw this.notFound(uri);
    // Conditional on the session (one that ended while the lookup ran is not re-subscribed) and
    // on its cap, in the same atomic step of the store.
    const stored = await this.subscriptions.subscribe(sessionId, uri, this.limit);
    if (stored === 'full') throw new McpCapacityException('subscriptions', this.limit);
    if (!stored) throw new McpSessionNotFoundException();
    return this.strict ? {} : { subscribed: true, uri };
  }

  private async unsubscribe(params: Record<string, unknown>, ctx: McpRequestContext) {
    const uri = requireString(params, 'uri');
    const sessionId = requireSession(ctx);
    await this.subscriptions.unsubscribe(sessionId, uri);
    return this.strict ? {} : { unsubscribed: true, uri };
  }

  private notFound(uri: string): McpException {
    return this.strict
      ? new McpResourceNotFoundException(uri)
      : new McpResourceNotFoundException(uri, JsonRpcErrorCode.MethodNotFound);
  }
}

function requireSession(ctx: McpRequestContext): string {
  if (!ctx.sessionId) throw new McpSessionRequiredException();
  return ctx.sessionId;
}
