import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { McpResource } from '../decorators/mcp-resource.decorator.js';
import { McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';
import { McpTestClient } from '../testing/mcp-testing-module.js';
import type { UriVariables } from '../templates/index.js';
import { McpResourceService } from './mcp-resource.service.js';

@Injectable()
class ItemResources {
  readonly items = new Map([
    ['1', { id: '1', name: 'first' }],
    ['2', { id: '2', name: 'second' }],
  ]);
  /** How often a template handler read an item. */
  reads = 0;

  @McpResource({
    uriTemplate: 'mem://items/{id}',
    name: 'Item',
    mimeType: 'application/json',
    annotations: { audience: ['assistant'], priority: 0.5 },
    complete: {
      id(this: ItemResources, value: string) {
        return [...this.items.keys()].filter((id) => id.startsWith(value));
      },
    },
    exists(this: ItemResources, { variables }: { uri: string; variables: UriVariables }) {
      if (variables.id === 'outage') throw new Error('connection refused by db-1:5432');
      return this.items.has(String(variables.id));
    },
  })
  item({ variables }: { uri: string; variables: UriVariables }) {
    this.reads++;
    const item = this.items.get(String(variables.id));
    if (!item) throw new McpInvalidParamsException(`Item ${String(variables.id)} does not exist`);
    return item;
  }

  @McpResource({ uriTemplate: 'x://users{/id*}', name: 'Users path' })
  users({ variables }: { uri: string; variables: UriVariables }) {
    this.reads++;
    return `users ${JSON.stringify(variables.id)}`;
  }

  @McpResource({ uri: 'mem://items/special', name: 'Special' })
  special() {
    return 'exact wins';
  }
}

describe('resource templates', () => {
  let client: McpTestClient;

  beforeEach(async () => {
    client = await McpTestClient.create({ providers: [ItemResources] });
  });

  afterEach(() => client.close());

  it('lists templates with their descriptors', async () => {
    const ctx = await client.initialize();
    const { resourceTemplates } = (await client.result('resources/templates/list', {}, ctx)) as {
      resourceTemplates: Record<string, unknown>[];
    };
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: 'mem://items/{id}',
        name: 'Item',
        mimeType: 'application/json',
        annotations: { audience: ['assistant'], priority: 0.5 },
      },
      { uriTemplate: 'x://users{/id*}', name: 'Users path' },
    ]);
  });

  it('reads a URI through the template that matches it, with its variables', async () => {
    const ctx = await client.initialize();
    expect(await client.result('resources/read', { uri: 'mem://items/2' }, ctx)).toEqual({
      contents: [{ uri: 'mem://items/2', mimeType: 'application/json', text: '{"id":"2","name":"second"}' }],
    });
    expect(await client.result('resources/read', { uri: 'x://users/a/b' }, ctx)).toEqual({
      contents: [{ uri: 'x://users/a/b', mimeType: 'text/plain', text: 'users ["a","b"]' }],
    });
  });

  it('prefers an exact resource over a template', async () => {
    const ctx = await client.initialize();
    const { contents } = (await client.result('resources/read', { uri: 'mem://items/special' }, ctx)) as {
      contents: { text: string }[];
    };
    expect(contents[0].text).toBe('exact wins');
  });

  it('matches the scheme exactly: db://items/1 is not mem://items/{id}', async () => {
    const ctx = await client.initialize();
    const error = await client.error('resources/read', { uri: 'db://items/1' }, ctx);
    expect(error.code).toBe(-32002);
  });

  it('answers a hostile 64 KiB URI with -32602, and a long non-matching one with -32002', async () => {
    const ctx = await client.initialize();
    const hostile = 'x://users/' + 'a,'.repeat(32_000) + 'b/';
    const tooLong = await client.error('resources/read', { uri: hostile }, ctx);
    expect(tooLong.code).toBe(-32602);
    const nearCap = 'x://q' + 'a,'.repeat(4_000);
    expect((await client.error('resources/read', { uri: nearCap }, ctx)).code).toBe(-32002);
  });

  it("asks the template's exists hook, with the provider as this, and never reads", async () => {
    const ctx = await client.initialize();
    const provider = client.module.get(ItemResources);

    // The library's default wire profile: the MCP schema's `{}` and -32002 with the URI.
    expect(await client.result('resources/subscribe', { uri: 'mem://items/1' }, ctx)).toEqual({});
    const missing = await client.error('resources/subscribe', { uri: 'mem://items/404' }, ctx);
    expect(missing.code).toBe(-32002);
    expect(missing.data).toMatchObject({ uri: 'mem://items/404' });
    expect(provider.reads).toBe(0);
  });

  it('answers a failing exists hook with the error, not with "not found"', async () => {
    const ctx = await client.initialize();

    const error = await client.error('resources/subscribe', { uri: 'mem://items/outage' }, ctx);

    expect(error.code).toBe(-32603);
    expect(JSON.stringify(error)).not.toContain('db-1');
  });

  it('subscribes to any URI a template without an exists hook matches, without reading it', async () => {
    const ctx = await client.initialize();
    const provider = client.module.get(ItemResources);

    expect(await client.result('resources/subscribe', { uri: 'x://users/a/b' }, ctx)).toEqual({});
    expect(provider.reads).toBe(0);
    expect((await client.error('resources/subscribe', { uri: 'x://nobody' }, ctx)).code).toBe(-32002);
  });

  it('asks the exists hook of a runtime template: false is not found, a throw is an error', async () => {
    const ctx = await client.initialize();
    const known = new Set(['a']);
    client.module.get(McpResourceService).registerTemplate('rt://keys/{key}', () => 'value', {
      exists: ({ variables }, request) => {
        if (request.method !== 'resources/subscribe') throw new Error('not a subscribe');
        if (variables.key === 'down') return Promise.reject(new Error('store unreachable'));
        return known.has(String(variables.key));
      },
    });

    expect(await client.result('resources/subscribe', { uri: 'rt://keys/a' }, ctx)).toEqual({});
    expect((await client.error('resources/subscribe', { uri: 'rt://keys/b' }, ctx)).code).toBe(-32002);
    expect((await client.error('resources/subscribe', { uri: 'rt://keys/down' }, ctx)).code).toBe(-32603);
  });

  it('completes template variables, with the provider as this', async () => {
    const ctx = await client.initialize();
    const result = await client.result(
      'completion/complete',
      { ref: { type: 'ref/resource', uri: 'mem://items/{id}' }, argument: { name: 'id', value: '1' } },
      ctx,
    );
    expect(result).toEqual({ completion: { values: ['1'], total: 1, hasMore: false } });
  });

  it('completes the variables of a runtime template, with the chosen values and the request', async () => {
    const ctx = await client.initialize();
    const seen: unknown[] = [];
    client.module.get(McpResourceService).registerTemplate('rt://cities/{country}/{city}', () => 'x', {
      complete: {
        city(value, { arguments: chosen, request }) {
          seen.push({ value, chosen, method: request.method });
          return ['Oslo', 'Bergen'].filter((city) => city.startsWith(value));
        },
      },
    });

    const result = await client.result(
      'completion/complete',
      {
        ref: { type: 'ref/resource', uri: 'rt://cities/{country}/{city}' },
        argument: { name: 'city', value: 'B' },
        context: { arguments: { country: 'NO' } },
      },
      ctx,
    );

    expect(result).toEqual({ completion: { values: ['Bergen'], total: 1, hasMore: false } });
    expect(seen).toEqual([{ value: 'B', chosen: { country: 'NO' }, method: 'completion/complete' }]);
  });

  it('registers and unregisters templates at runtime', async () => {
    const ctx = await client.initialize();
    const service = client.module.get(McpResourceService);
    service.registerTemplate('rt://echo/{word}', ({ variables }) => `echo ${String(variables.word)}`, { name: 'Echo' });
    const { contents } = (await client.result('resources/read', { uri: 'rt://echo/hi' }, ctx)) as {
      contents: { text: string }[];
    };
    expect(contents[0].text).toBe('echo hi');
    expect(() => service.registerTemplate('mem://items/{id}', () => 'x')).toThrow(/cannot be replaced at runtime/);
    expect(() => service.registerTemplate('no-scheme/{id}', () => 'x')).toThrow(/scheme/);
    expect(() => service.registerTemplate('rt://bad/{id', () => 'x')).toThrow(/Invalid MCP resource template/);
    expect(service.unregisterTemplate('rt://echo/{word}')).toBe(true);
    expect((await client.error('resources/read', { uri: 'rt://echo/hi' }, ctx)).code).toBe(-32002);
    expect(service.unregisterTemplate('mem://items/{id}')).toBe(false);
  });
});
