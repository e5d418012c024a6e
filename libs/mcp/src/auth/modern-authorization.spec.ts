/**
 * Authorization in the modern era (MCP 2026-07-28), at the dispatcher: requests are authorized
 * one by one on the principal each carries, an MRTR `requestState` is bound to its principal, a
 * listen leaves out the URIs its principal may not read, and filtered lists are private.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { McpCtx } from '../decorators/mcp-params.decorator.js';
import { McpResource } from '../decorators/mcp-resource.decorator.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID } from '../mcp.constants.js';
import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import { asError, asSuccess, McpTestClient, request } from '../testing/mcp-testing-module.js';
import type { McpPrincipal } from '../model/mcp-principal.js';
import { RequireScopes } from './require-scopes.decorator.js';
import { ResourceNotificationService } from '../notifications/resource-notification.service.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const ISSUER = 'https://as.example.com';

const principal = (clientId: string, scopes: string[]): McpPrincipal => ({
  issuer: ISSUER,
  subject: clientId,
  clientId,
  scopes,
  audience: [RESOURCE],
  claims: {},
});

@Injectable()
class ModernNotes {
  @McpResource({ uri: 'public://motd', name: 'motd' })
  motd() {
    return 'hello';
  }

  @McpResource({ uri: 'notes://all', name: 'notes' })
  @RequireScopes('notes:read')
  notes() {
    return [];
  }

  @McpTool({ name: 'confirm', description: 'Asks before answering' })
  async confirm(_args: unknown, @McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } });
    return `${String(ctx.auth?.clientId)}: ${answer.action}`;
  }

  @McpTool({ name: 'write', description: 'Needs notes:write' })
  @RequireScopes('notes:write')
  write() {
    return 'written';
  }
}

/** A modern request: the `_meta` envelope on its params. */
const modern = (method: string, params: Record<string, unknown> = {}) =>
  request(method, {
    ...params,
    _meta: { [META_PROTOCOL_VERSION]: '2026-07-28', [META_CLIENT_CAPABILITIES]: { elicitation: {} } },
  });

/** Resolves once `condition` holds, checked on every turn of the event loop (no timed sleep). */
const until = (condition: () => boolean): Promise<void> =>
  new Promise((resolve) => {
    const poll = () => (condition() ? resolve() : setImmediate(poll));
    poll();
  });

const as = (auth: McpPrincipal | undefined, extra: Partial<McpDispatchContext> = {}): McpDispatchContext => ({
  transport: 'streamable-http',
  sessionsEnabled: false,
  ...(auth ? { auth } : {}),
  ...extra,
});

describe('Authorization in the modern era', () => {
  let client: McpTestClient | undefined;

  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  const start = async () => {
    client = await McpTestClient.create({
      providers: [ModernNotes],
      options: {
        auth: { resource: RESOURCE, authorizationServers: [ISSUER], scopesSupported: ['notes:read', 'notes:write'] },
        modern: { requestStateKeys: ['k'.repeat(32)] },
      },
    });
    return client;
  };

  it('authorizes each request on its own principal: 403 insufficient_scope, then the step-up token passes', async () => {
    const mcp = await start();
    const refused = asError(await mcp.dispatch(modern('tools/call', { name: 'write' }), as(principal('app', []))));
    expect(refused.error).toMatchObject({
      code: -32003,
      message: 'Insufficient scope',
      data: { requiredScopes: ['notes:write'] },
    });
    const answer = await mcp.answer(modern('tools/call', { name: 'write' }), as(principal('app', [])));
    expect(answer?.status).toBe(403);
    expect(answer?.headers?.['WWW-Authenticate']).toMatch(/^Bearer error="insufficient_scope"/);
    const passed = asSuccess(
      await mcp.dispatch(modern('tools/call', { name: 'write' }), as(principal('app', ['notes:write']))),
    );
    expect(passed.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'written' }] });
  });

  it("binds an MRTR requestState to its principal: another principal's retry is refused, the owner's (stepped up) continues", async () => {
    const mcp = await start();
    const alice = principal('alice-app', []);
    const first = asSuccess(await mcp.dispatch(modern('tools/call', { name: 'confirm' }), as(alice)));
    expect(first.result.resultType).toBe('input_required');
    const requestState = first.result.requestState as string;
    const [key] = Object.keys(first.result.inputRequests as Record<string, unknown>);
    const retry = modern('tools/call', {
      name: 'confirm',
      requestState,
      inputResponses: { [key]: { action: 'accept' } },
    });

    const stolen = asError(await mcp.dispatch(retry, as(principal('mallory-app', []))));
    expect(stolen.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(stolen.error)).toContain('issued to another caller');
    const anonymous = asError(await mcp.dispatch(retry, as(undefined)));
    expect(JSON.stringify(anonymous.error)).toContain('issued to another caller');

    const owner = asSuccess(await mcp.dispatch(retry, as(principal('alice-app', ['notes:read']))));
    expect(owner.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'alice-app: accept' }],
    });
  });

  it('a listen leaves out the URIs its principal may not read, and delivers nothing for them', async () => {
    const mcp = await start();
    const sent: string[] = [];
    let stop!: () => void;
    const listening = mcp.dispatch(
      modern('subscriptions/listen', { notifications: { resourceSubscriptions: ['notes://all', 'public://motd'] } }),
      as(principal('app', []), { sendRelated: (json) => sent.push(json) > 0, onDropped: (drop) => (stop = drop) }),
    );
    await until(() => sent.length > 0);
    const ack = JSON.parse(sent[0]);
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: ['public://motd'] } },
    });
    expect(ack.params._meta[META_SUBSCRIPTION_ID]).toEqual(expect.anything());
    const notifier = mcp.module.get(ResourceNotificationService);
    await notifier.notifyResourceUpdated('notes://all');
    await notifier.notifyResourceUpdated('public://motd');
    // Deliveries are written in order on a later turn: once motd's is out, notes' would be too.
    await until(() => sent.length > 1);
    const updates = sent.slice(1).map((json) => JSON.parse(json).params?.uri);
    expect(updates).toEqual(['public://motd']);
    stop();
    // A dropped request is cancelled: no answer, no error.
    await expect(listening).resolves.toBeUndefined();
  });

  it('filtered lists are private; without a principal they keep the public default', async () => {
    const mcp = await start();
    const listed = asSuccess(await mcp.dispatch(modern('resources/list'), as(principal('app', []))));
    expect(listed.result).toMatchObject({ cacheScope: 'private', resources: [{ uri: 'public://motd' }] });
    const read = asSuccess(
      await mcp.dispatch(modern('resources/read', { uri: 'notes://all' }), as(principal('app', ['notes:read']))),
    );
    expect(read.result.cacheScope).toBe('private');
    const local = asSuccess(await mcp.dispatch(modern('resources/list'), as(undefined)));
    expect(local.result.cacheScope).toBe('public');
    expect((local.result.resources as unknown[]).length).toBe(2);
  });
});
