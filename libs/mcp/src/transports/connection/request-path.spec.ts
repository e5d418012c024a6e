import { describe, expect, it } from '@jest/globals';
import { normalizePath, pathIn } from './request-path.js';

describe('pathIn', () => {
  const paths = new Set(['/mcp', '/a/messages'].map(normalizePath));

  it('matches a URL that is one of the paths exactly, and one that needs normalizing or has a query', () => {
    expect(pathIn('/mcp', paths)).toBe('/mcp');
    expect(pathIn('/mcp/', paths)).toBe('/mcp');
    expect(pathIn('mcp', paths)).toBe('/mcp');
    expect(pathIn('/mcp?session=1', paths)).toBe('/mcp');
    expect(pathIn('/a/messages?sessionId=x', paths)).toBe('/a/messages');
  });

  it('matches nothing else', () => {
    expect(pathIn('/other', paths)).toBeUndefined();
    expect(pathIn('/mcp/x', paths)).toBeUndefined();
    expect(pathIn(undefined, paths)).toBeUndefined();
    // A configured path with a query never matches: a request's path has none.
    expect(pathIn('/mcp?x', new Set(['/mcp?x']))).toBeUndefined();
  });
});
