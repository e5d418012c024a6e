import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { MCP_SUBSCRIPTION_STORE } from '../../backend/mcp-backend.tokens.js';
import type { McpSubscriptionStore } from '../../backend/mcp-subscription.store.js';
import { McpResource } from '../../decorators/index.js';
import { McpTestClient } from '../../testing/mcp-testing-module.js';

@Injectable()
class ThreeResources {
  @McpResource({ uri: 'db://a' })
  a() {
    return 'a';
  }

  @McpResource({ uri: 'db://b' })
  b() {
    return 'b';
  }

  @McpResource({ uri: 'db://c' })
  c() {
    return 'c';
  }
}

describe('resources/subscribe: the cap per session (maxSubscriptionsPerSession)', () => {
  let client: McpTestClient | undefined;

  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('answers -32000 "Too many subscriptions" naming the limit past it; held URIs, other sessions and an unsubscribe are fine', async () => {
    client = await McpTestClient.create({
      options: { sessions: { maxSubscriptions: 2 } },
      providers: [ThreeResources],
    });
    const ctx = await client.initialize();
    const other = await client.initialize();
    expect(await client.result('resources/subscribe', { uri: 'db://a' }, ctx)).toEqual({});
    await client.result('resources/subscribe', { uri: 'db://b' }, ctx);

    expect(await client.error('resources/subscribe', { uri: 'db://c' }, ctx)).toEqual({
      code: -32000,
      message: 'Too many subscriptions',
      data: {
        limit: 2,
        detail: 'This session is already subscribed to its limit of 2 resources; unsubscribe from one first',
      },
    });
    // Subscribing again to a URI it holds is idempotent, at the cap too.
    await client.result('resources/subscribe', { uri: 'db://a' }, ctx);
    await client.result('resources/subscribe', { uri: 'db://c' }, other);
    await client.result('resources/unsubscribe', { uri: 'db://a' }, ctx);
    expect(await client.result('resources/subscribe', { uri: 'db://c' }, ctx)).toEqual({});
  });

  it('defaults to 1,000', async () => {
    client = await McpTestClient.create({ providers: [ThreeResources] });
    const ctx = await client.initialize();
    const store = client.module.get<McpSubscriptionStore>(MCP_SUBSCRIPTION_STORE);
    for (let i = 0; i < 999; i++) await store.subscribe(ctx.session!.id, `db://filler/${i}`);

    await client.result('resources/subscribe', { uri: 'db://a' }, ctx);
    expect(await client.error('resources/subscribe', { uri: 'db://b' }, ctx)).toMatchObject({
      code: -32000,
      data: { limit: 1_000 },
    });
  });
});
