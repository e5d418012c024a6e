import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { thrownBy } from '../testing/thrown.js';
import { McpToolRegistry, type McpToolEntry } from './mcp-tool.registry.js';
import { isValidToolName } from './tool-name.js';

const toolEntry = (name: string, source = 'Tools.method'): McpToolEntry => ({
  name,
  descriptor: { name, inputSchema: { type: 'object' } },
  input: { jsonSchema: { type: 'object' }, validate: (value) => ({ ok: true, value }) },
  handler: async () => name,
  source,
});

const definitionErrorOf = (fn: () => unknown): McpDefinitionError => {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(McpDefinitionError);
  return error as McpDefinitionError;
};

describe('tool names (MCP 2025-11-25: 1 to 128 of A-Z a-z 0-9 _ - .)', () => {
  it.each([
    ['one character', 'a'],
    ['128 characters', 'x'.repeat(128)],
    ['every allowed character class', 'Az09_-.'],
    ['dots and dashes', 'notes.create-v2'],
    ['underscores', 'get_weather'],
    ['only digits', '0123'],
    ['only punctuation', '.-_'],
  ])('accepts %s', (_label, name) => {
    expect(isValidToolName(name)).toBe(true);
    expect(() => new McpToolRegistry().register(toolEntry(name))).not.toThrow();
  });

  it.each([
    ['the empty string', ''],
    ['129 characters', 'x'.repeat(129)],
    ['a space', 'get weather'],
    ['a comma', 'get,weather'],
    ['an at sign', 'user@tool'],
    ['a slash', 'notes/create'],
    ['a colon', 'notes:create'],
    ['a latin letter with an accent', 'café'],
    ['a CJK name', '工具'],
    ['an emoji', 'tool🙂'],
    ['a trailing newline', 'tool\n'],
    ['a tab', 'to\tol'],
    ['a NUL character', 'tool\u0000'],
  ])('rejects %s, naming the source', (_label, name) => {
    expect(isValidToolName(name)).toBe(false);

    const error = definitionErrorOf(() => new McpToolRegistry().register(toolEntry(name, 'WeatherTools.lookup')));

    expect(error.message).toContain('WeatherTools.lookup');
    expect(error.message).toContain('Invalid MCP tool name');
  });

  it.each<unknown>([undefined, null, 42, {}, ['a']])('rejects a non-string name (%p)', (name) => {
    expect(isValidToolName(name)).toBe(false);
    definitionErrorOf(() => new McpToolRegistry().register(toolEntry(name as string)));
  });
});

describe('McpToolRegistry', () => {
  it('keeps names that differ only in case as distinct tools', () => {
    const registry = new McpToolRegistry();

    registry.register(toolEntry('echo', 'A.lower'));
    registry.register(toolEntry('Echo', 'A.capital'));
    registry.register(toolEntry('ECHO', 'A.upper'));

    expect(registry.size).toBe(3);
    expect(registry.get('echo')?.source).toBe('A.lower');
    expect(registry.get('Echo')?.source).toBe('A.capital');
    expect(registry.get('eCHO')).toBeUndefined();
  });

  it('refuses a duplicate name with a message naming both Class.method sources, keeping the first', () => {
    const registry = new McpToolRegistry();
    registry.register(toolEntry('search', 'FirstTools.search'));

    const error = definitionErrorOf(() => registry.register(toolEntry('search', 'SecondTools.find')));

    expect(error.message).toContain("'search'");
    expect(error.message).toContain('FirstTools.search');
    expect(error.message).toContain('SecondTools.find');
    expect(registry.size).toBe(1);
    expect(registry.get('search')?.source).toBe('FirstTools.search');
  });

  it('allows a name again once it was unregistered', () => {
    const registry = new McpToolRegistry();
    registry.register(toolEntry('search', 'FirstTools.search'));

    expect(registry.unregister('search')).toBe(true);
    expect(registry.unregister('search')).toBe(false);
    registry.register(toolEntry('search', 'SecondTools.find'));

    expect(registry.get('search')?.source).toBe('SecondTools.find');
  });

  it('never finds prototype members by name', () => {
    const registry = new McpToolRegistry();
    registry.register(toolEntry('echo'));

    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(registry.get(name)).toBeUndefined();
    }
  });

  it('pages its tools in name order', () => {
    const registry = new McpToolRegistry();
    for (const name of ['c', 'a', 'b']) registry.register(toolEntry(name));

    const first = registry.page(undefined, 2);
    const second = registry.page(first.nextCursor, 2);

    expect(first.items.map((tool) => tool.name)).toEqual(['a', 'b']);
    expect(second.items.map((tool) => tool.name)).toEqual(['c']);
    expect('nextCursor' in second).toBe(false);
  });
});
