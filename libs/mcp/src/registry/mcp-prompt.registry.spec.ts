import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { thrownBy } from '../testing/thrown.js';
import { McpPromptRegistry, type McpPromptEntry } from './mcp-prompt.registry.js';

const promptEntry = (name: string, source = 'Prompts.method'): McpPromptEntry => ({
  name,
  descriptor: { name },
  arguments: [],
  handler: async () => name,
  source,
});

describe('McpPromptRegistry', () => {
  it('refuses a duplicate name with a message naming both Class.method sources, keeping the first', () => {
    const registry = new McpPromptRegistry();
    registry.register(promptEntry('summarize', 'WritingPrompts.summarize'));

    const error = thrownBy(() => registry.register(promptEntry('summarize', 'OtherPrompts.summary')));

    expect(error).toBeInstanceOf(McpDefinitionError);
    expect((error as Error).message).toContain("'summarize'");
    expect((error as Error).message).toContain('WritingPrompts.summarize');
    expect((error as Error).message).toContain('OtherPrompts.summary');
    expect(registry.size).toBe(1);
    expect(registry.get('summarize')?.source).toBe('WritingPrompts.summarize');
  });

  it('keeps names that differ only in case as distinct prompts', () => {
    const registry = new McpPromptRegistry();
    registry.register(promptEntry('review', 'P.lower'));
    registry.register(promptEntry('Review', 'P.capital'));

    expect(registry.size).toBe(2);
    expect(registry.get('REVIEW')).toBeUndefined();
  });

  it('unregisters by name, after which the name may be registered again', () => {
    const registry = new McpPromptRegistry();
    registry.register(promptEntry('review', 'First.review'));

    expect(registry.unregister('review')).toBe(true);
    expect(registry.unregister('review')).toBe(false);
    expect(registry.get('review')).toBeUndefined();
    registry.register(promptEntry('review', 'Second.review'));

    expect(registry.get('review')?.source).toBe('Second.review');
  });

  it('never finds prototype members by name', () => {
    const registry = new McpPromptRegistry();
    registry.register(promptEntry('review'));

    for (const name of ['__proto__', 'constructor', 'toString']) expect(registry.get(name)).toBeUndefined();
  });

  it('pages its prompts in name order with a cursor only while more follow', () => {
    const registry = new McpPromptRegistry();
    for (const name of ['b', 'c', 'a']) registry.register(promptEntry(name));

    const first = registry.page(undefined, 2);
    const second = registry.page(first.nextCursor, 2);

    expect(first.items.map((prompt) => prompt.name)).toEqual(['a', 'b']);
    expect(second.items.map((prompt) => prompt.name)).toEqual(['c']);
    expect('nextCursor' in second).toBe(false);
  });
});
