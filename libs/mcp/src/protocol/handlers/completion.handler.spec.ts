import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { McpPrompt } from '../../decorators/mcp-prompt.decorator.js';
import { McpTestClient } from '../../testing/mcp-testing-module.js';

@Injectable()
class ColourPrompts {
  readonly palette = ['red', 'green', 'grey', 'blue'];

  @McpPrompt({
    name: 'paint',
    description: 'Paints something',
    arguments: [
      {
        name: 'colour',
        required: true,
        // A method shorthand: `this` is the provider, so injected state is reachable.
        complete(this: ColourPrompts, value) {
          return this.palette.filter((colour) => colour.startsWith(value));
        },
      },
      {
        name: 'shade',
        complete: (value, { arguments: chosen }) => [
          `${chosen.colour ?? 'any'}-${value}light`,
          `${chosen.colour ?? 'any'}-${value}dark`,
        ],
      },
      { name: 'many', complete: () => Array.from({ length: 250 }, (_, i) => `v${i}`) },
      { name: 'plain' },
    ],
  })
  paint() {
    return 'paint';
  }
}

@Injectable()
class PlainPrompts {
  @McpPrompt({ name: 'plain', description: 'No completion' })
  plain() {
    return 'plain';
  }
}

const complete = (name: string, value: string, extra: Record<string, unknown> = {}) => ({
  ref: { type: 'ref/prompt', name: 'paint' },
  argument: { name, value },
  ...extra,
});

describe('completion/complete', () => {
  let client: McpTestClient;

  beforeEach(async () => {
    client = await McpTestClient.create({ providers: [ColourPrompts] });
  });

  afterEach(() => client.close());

  it('declares the completions capability and keeps complete out of prompts/list', async () => {
    const ctx = await client.initialize();
    const init = await client.result('initialize', { protocolVersion: '2025-11-25' });
    expect(init.capabilities).toHaveProperty('completions', {});
    const { prompts } = (await client.result('prompts/list', {}, ctx)) as { prompts: { arguments: object[] }[] };
    for (const argument of prompts[0].arguments) expect(argument).not.toHaveProperty('complete');
  });

  it('filters by the partial value, with the provider as this', async () => {
    const ctx = await client.initialize();
    expect(await client.result('completion/complete', complete('colour', 'gr'), ctx)).toEqual({
      completion: { values: ['green', 'grey'], total: 2, hasMore: false },
    });
  });

  it('passes the arguments already chosen (context.arguments)', async () => {
    const ctx = await client.initialize();
    const result = await client.result(
      'completion/complete',
      complete('shade', 'x', { context: { arguments: { colour: 'red' } } }),
      ctx,
    );
    expect(result).toEqual({ completion: { values: ['red-xlight', 'red-xdark'], total: 2, hasMore: false } });
  });

  it('caps the answer at 100 values and says more exist', async () => {
    const ctx = await client.initialize();
    const { completion } = (await client.result('completion/complete', complete('many', ''), ctx)) as {
      completion: { values: string[]; total: number; hasMore: boolean };
    };
    expect(completion.values).toHaveLength(100);
    expect(completion.values[0]).toBe('v0');
    expect(completion.total).toBe(250);
    expect(completion.hasMore).toBe(true);
  });

  it('answers no values for an argument without a completer', async () => {
    const ctx = await client.initialize();
    expect(await client.result('completion/complete', complete('plain', 'a'), ctx)).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it.each([
    ['an unknown prompt', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }, 'nope'],
    [
      'an unknown ref type',
      { ref: { type: 'ref/tool', name: 'paint' }, argument: { name: 'x', value: '' } },
      'ref.type',
    ],
    ['a missing argument name', { ref: { type: 'ref/prompt', name: 'paint' }, argument: {} }, 'name'],
    [
      'an unknown template',
      { ref: { type: 'ref/resource', uri: 'x://{id}' }, argument: { name: 'id', value: '' } },
      'x://{id}',
    ],
  ])('answers -32602 for %s', async (_label, params, mention) => {
    const ctx = await client.initialize();
    const error = await client.error('completion/complete', params, ctx);
    expect(error.code).toBe(-32602);
    expect((error.data as { detail: string }).detail).toContain(mention);
  });

  it('is method-not-found on a server without completers', async () => {
    const plain = await McpTestClient.create({ providers: [PlainPrompts] });
    try {
      const ctx = await plain.initialize();
      const init = await plain.result('initialize', { protocolVersion: '2025-11-25' });
      expect(init.capabilities).not.toHaveProperty('completions');
      expect((await plain.error('completion/complete', complete('colour', ''), ctx)).code).toBe(-32601);
    } finally {
      await plain.close();
    }
  });
});
