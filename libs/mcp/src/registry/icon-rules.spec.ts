import { describe, expect, it } from '@jest/globals';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpIcon } from '../interfaces/mcp-icon.interface.js';
import { assertValidIcons } from './icon-rules.js';

describe('assertValidIcons', () => {
  it('accepts https and data: icons with array sizes and a theme', () => {
    expect(() =>
      assertValidIcons(
        [
          { src: 'https://example.com/a.png', mimeType: 'image/png', sizes: ['48x48', 'any'], theme: 'dark' },
          { src: 'data:image/svg+xml;base64,PHN2Zy8+' },
        ],
        'X.y',
      ),
    ).not.toThrow();
    expect(() => assertValidIcons(undefined, 'X.y')).not.toThrow();
  });

  it.each<[string, unknown]>([
    ['an http src', [{ src: 'http://example.com/a.png' }]],
    ['a relative src', [{ src: 'a.png' }]],
    ['sizes as a string', [{ src: 'https://e.com/a.png', sizes: '48x48' }]],
    ['a malformed size', [{ src: 'https://e.com/a.png', sizes: ['48'] }]],
    ['an unknown theme', [{ src: 'https://e.com/a.png', theme: 'blue' }]],
    ['icons that are not an array', { src: 'https://e.com/a.png' }],
  ])('refuses %s, naming where it was declared', (_label, icons) => {
    expect(() => assertValidIcons(icons as McpIcon[], 'Tools.paint')).toThrow(McpDefinitionError);
    expect(() => assertValidIcons(icons as McpIcon[], 'Tools.paint')).toThrow(/Tools\.paint/);
  });
});
