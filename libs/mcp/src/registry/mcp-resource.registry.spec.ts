import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { thrownBy } from '../testing/thrown.js';
import { buildResourceDescriptor, McpResourceRegistry, type McpResourceEntry } from './mcp-resource.registry.js';
import { hasUriScheme } from '../model/uri-scheme.js';

const resourceEntry = (uri: string, source = 'Resources.read'): McpResourceEntry => ({
  uri,
  descriptor: buildResourceDescriptor(uri, {}),
  handler: async () => uri,
  source,
});

const definitionErrorOf = (fn: () => unknown): McpDefinitionError => {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(McpDefinitionError);
  return error as McpDefinitionError;
};

describe('McpResourceRegistry', () => {
  it.each([
    'file:///README.md',
    'db://notes/42',
    'system://info',
    'custom+x.y-z://a',
    'urn:isbn:0451450523',
    'mailto:a@b.c',
  ])('accepts the URI %s', (uri) => {
    const registry = new McpResourceRegistry();

    registry.register(resourceEntry(uri));

    expect(registry.has(uri)).toBe(true);
    expect(registry.get(uri)?.uri).toBe(uri);
  });

  it.each([
    ['no scheme', 'notes'],
    ['an absolute path', '/etc/hosts'],
    ['the empty string', ''],
    ['an empty scheme', '://notes'],
    ['a scheme starting with a digit', '1db://notes'],
    ['a scheme with an underscore', 'my_db://notes'],
    ['whitespace after the scheme', 'file:///my notes.md'],
    ['a trailing newline', 'db://notes\n'],
  ])('rejects a URI with %s, naming the source', (_label, uri) => {
    expect(hasUriScheme(uri)).toBe(false);

    const error = definitionErrorOf(() => new McpResourceRegistry().register(resourceEntry(uri, 'NoteResources.all')));

    expect(error.message).toContain('NoteResources.all');
    expect(error.message).toContain('Invalid MCP resource URI');
  });

  it('refuses a duplicate URI with a message naming both Class.method sources, keeping the first', () => {
    const registry = new McpResourceRegistry();
    registry.register(resourceEntry('db://notes', 'NoteResources.all'));

    const error = definitionErrorOf(() => registry.register(resourceEntry('db://notes', 'LegacyResources.notes')));

    expect(error.message).toContain("'db://notes'");
    expect(error.message).toContain('NoteResources.all');
    expect(error.message).toContain('LegacyResources.notes');
    expect(registry.size).toBe(1);
    expect(registry.get('db://notes')?.source).toBe('NoteResources.all');
  });

  it('matches URIs exactly and case-sensitively', () => {
    const registry = new McpResourceRegistry();
    registry.register(resourceEntry('db://Notes', 'R.upper'));
    registry.register(resourceEntry('db://notes', 'R.lower'));

    expect(registry.size).toBe(2);
    expect(registry.get('db://notes')?.source).toBe('R.lower');
    expect(registry.get('db://NOTES')).toBeUndefined();
    expect(registry.get('db://notes/')).toBeUndefined();
    expect(registry.has('db://*')).toBe(false);
  });

  it('unregisters by URI, after which the URI may be registered again', () => {
    const registry = new McpResourceRegistry();
    registry.register(resourceEntry('db://notes', 'First.read'));

    expect(registry.unregister('db://notes')).toBe(true);
    expect(registry.has('db://notes')).toBe(false);
    expect(registry.unregister('db://notes')).toBe(false);
    registry.register(resourceEntry('db://notes', 'Second.read'));

    expect(registry.get('db://notes')?.source).toBe('Second.read');
  });
});

describe('a live count of the entries a feature cares about', () => {
  it('counts the entries already there, then follows every register and unregister', () => {
    const registry = new McpResourceRegistry();
    registry.register(resourceEntry('ui://a'));
    registry.register(resourceEntry('db://b'));
    const ui = registry.counter((entry) => entry.uri.startsWith('ui://'));
    expect(ui()).toBe(1);
    registry.register(resourceEntry('ui://c'));
    expect(ui()).toBe(2);
    expect(registry.unregister('db://b')).toBe(true);
    expect(registry.unregister('ui://a')).toBe(true);
    expect(registry.unregister('ui://a')).toBe(false);
    expect(ui()).toBe(1);
    expect(() => registry.register(resourceEntry('ui://c', 'Other.read'))).toThrow(McpDefinitionError);
    expect(ui()).toBe(1);
  });
});

describe('buildResourceDescriptor', () => {
  it('defaults the name to the URI and carries no undefined members', () => {
    const descriptor = buildResourceDescriptor('db://notes', {
      name: undefined,
      description: undefined,
      mimeType: undefined,
      icons: undefined,
    });

    expect(descriptor).toStrictEqual({ uri: 'db://notes', name: 'db://notes' });
    expect(Object.keys(descriptor)).toEqual(['uri', 'name']);
  });

  it('keeps every declared field, icons with their sizes array included', () => {
    const icons = [
      { src: 'https://example.com/n.png', mimeType: 'image/png', sizes: ['48x48', 'any'], theme: 'dark' as const },
    ];

    const descriptor = buildResourceDescriptor('db://notes', {
      name: 'notes',
      title: 'Notes',
      description: 'All notes',
      mimeType: 'application/json',
      icons,
      _meta: { 'example.com/tag': 1 },
    });

    expect(descriptor).toStrictEqual({
      uri: 'db://notes',
      name: 'notes',
      title: 'Notes',
      description: 'All notes',
      mimeType: 'application/json',
      icons,
      _meta: { 'example.com/tag': 1 },
    });
  });

  it('keeps an empty-string name rather than replacing it with the URI', () => {
    expect(buildResourceDescriptor('db://notes', { name: '' }).name).toBe('');
  });
});
