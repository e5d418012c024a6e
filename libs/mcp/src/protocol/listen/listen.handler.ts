import { HttpException, Injectable } from '@nestjs/common';
import type { McpListKind } from '../../backend/mcp-fanout.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpNotAcceptableException } from '../../errors/mcp-transport.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { META_SUBSCRIPTION_ID } from '../../mcp.constants.js';
import { McpResourceResolver } from '../../resources/mcp-resource.resolver.js';
import { callerKeyOf } from '../../auth/caller-key.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { listenNotifications } from './listen-notifications.js';
import { McpListens } from './listens.registry.js';
import { McpMethods } from '../handlers/mcp-methods.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';
import { isObject } from '../../model/is-object.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** The list filters of a listen: the filter flag, the list it follows, the capability that offers it. */
const LIST_FILTERS: ReadonlyArray<readonly [flag: string, kind: McpListKind]> = [
  ['toolsListChanged', 'tools'],
  ['promptsListChanged', 'prompts'],
  ['resourcesListChanged', 'resources'],
];

/**
 * `subscriptions/listen` (MCP 2026-07-28): a long-lived answer stream carrying the change
 * notifications the client opted in to. The acknowledgement goes first, with the honoured subset
 * (what the server's capabilities offer; resource URIs that exist, matched exactly); every
 * notification carries the listen's id as its subscription id. The stream ends when the client
 * cancels (closes the HTTP stream; `notifications/cancelled` on stdio and WebSocket), or when the
 * server ends it: the access token of the request expired, or the server shuts down. The server
 * answers the listen with its completion result then (the end MCP 2026-07-28 defines for it); a
 * client whose token expired listens again with a fresh one.
 */
@Injectable()
export class ListenHandler implements McpMethodGroup {
  constructor(
    @McpOptions('modern') private readonly options: McpOptionGroup<'modern'>,
    private readonly resolver: McpResourceResolver,
    private readonly listens: McpListens,
    private readonly extensions: McpExtensions,
    private readonly table: McpMethods,
  ) {
    table.add(this, 'modern');
  }

  methods(): Record<string, McpMethodFn> {
    return { 'subscriptions/listen': (params, ctx, dispatch) => this.listen(params, ctx, dispatch) };
  }

  private async listen(params: Record<string, unknown>, ctx: McpRequestContext, dispatch: McpDispatchContext) {
    const filter = params.notifications;
    if (!isObject(filter)) throw new McpInvalidParamsException("'notifications' (the notification filter) is required");
    const capabilities = this.table.modernCapabilities();
    const honoured: Record<string, unknown> = {};
    const lists = new Set<McpListKind>();
    let asked = false;
    for (const [flag, kind] of LIST_FILTERS) {
      const value = filter[flag];
      if (value === undefined) continue;
      if (typeof value !== 'boolean') throw new McpInvalidParamsException(`'notifications.${flag}' must be a boolean`);
      asked ||= value;
      if (value && (capabilities[kind] as { listChanged?: boolean } | undefined)?.listChanged) {
        lists.add(kind);
        honoured[flag] = true;
      }
    }
    const resources = new Set<string>();
    if (filter.resourceSubscriptions !== undefined) {
      const uris = this.requestedUris(filter.resourceSubscriptions);
      asked ||= uris.length > 0;
      if ((capabilities.resources as { subscribe?: boolean } | undefined)?.subscribe) {
        for (const uri of new Set(uris)) if (await this.exists(uri, ctx)) resources.add(uri);
      }
      honoured.resourceSubscriptions = [...resources];
    }
    // The extensions' filters (the tasks extension's `taskIds`: status notifications of the caller's tasks).
    const extended = await this.extensions.listen(filter, ctx);
    for (const own of extended) {
      asked ||= own.asked;
      Object.assign(honoured, own.honoured);
    }
    if (!asked) throw new McpInvalidParamsException('The notification filter asks for no notifications');
    const owner = { caller: callerKeyOf(ctx.auth, ctx.request), principal: ctx.auth, requestId: ctx.requestId };
    // Refused before the acknowledgement, so over HTTP the refusal is an HTTP answer.
    this.listens.assertRoom(owner.caller);

    const subscriptionId = ctx.requestId;
    const stamped = listenNotifications(subscriptionId);
    const send = dispatch.sendRelated;
    if (!send?.(stamped('notifications/subscriptions/acknowledged', { notifications: honoured }))) {
      throw new McpNotAcceptableException(
        'subscriptions/listen answers with an event stream: accept text/event-stream',
      );
    }
    // Registered right after the acknowledgement, in the same turn: nothing can come between.
    const open = this.listens.start(
      { resources, lists, notify: (method, notificationParams) => send(stamped(method, notificationParams)) },
      ctx.signal,
      owner,
    );
    const unfollows = extended.map((own) => own.follow?.((method, params) => send(stamped(method, params))));
    try {
      await open.ended;
    } finally {
      for (const unfollow of unfollows) unfollow?.();
    }
    return { _meta: { [META_SUBSCRIPTION_ID]: subscriptionId } };
  }

  /** The URIs of the filter: strings, at most `maxListenUris`. */
  private requestedUris(value: unknown): string[] {
    if (!Array.isArray(value) || value.some((uri) => typeof uri !== 'string')) {
      throw new McpInvalidParamsException("'notifications.resourceSubscriptions' must be an array of URIs");
    }
    if (value.length > this.options.maxListenUris) {
      throw new McpInvalidParamsException(
        `'notifications.resourceSubscriptions' names ${value.length} URIs; at most ${this.options.maxListenUris} per listen`,
      );
    }
    return value as string[];
  }

  /**
   * A URI is honoured when it names an existing resource; one the protocol or a guard refuses
   * is left out, so the client sees what was honoured. Real failures (a backend outage) fail
   * the listen.
   */
  private async exists(uri: string, ctx: McpRequestContext): Promise<boolean> {
    try {
      return await this.resolver.exists(uri, ctx);
    } catch (error) {
      if (error instanceof McpException || (error instanceof HttpException && error.getStatus() < 500)) return false;
      throw error;
    }
  }
}
