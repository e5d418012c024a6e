import { describe, expect, it } from '@jest/globals';
import { authOptionProblems } from './auth-options.validation.js';
import type { McpAuthOptions } from '../interfaces/mcp-auth-options.interface.js';

const good: McpAuthOptions = {
  resource: 'https://mcp.example.com/mcp',
  authorizationServers: ['https://as.example.com'],
  scopesSupported: ['notes:read'],
};

describe('auth option validation', () => {
  it('accepts https, and http on loopback hosts', () => {
    expect(authOptionProblems(good)).toEqual([]);
    expect(
      authOptionProblems({ resource: 'http://127.0.0.1:5000/mcp', authorizationServers: ['http://localhost:4000'] }),
    ).toEqual([]);
    expect(authOptionProblems(undefined)).toEqual([]);
  });

  it.each<[string, Partial<McpAuthOptions>, RegExp]>([
    ['a relative resource', { resource: '/mcp' }, /auth\.resource' must be an absolute URL/],
    ['plain http on a public host', { resource: 'http://mcp.example.com/mcp' }, /must be an https: URL/],
    ['a fragment', { resource: 'https://mcp.example.com/mcp#x' }, /must not have a fragment/],
    ['a query', { resource: 'https://mcp.example.com/mcp?a=1' }, /must not have a query/],
    ['no authorization server', { authorizationServers: [] }, /at least one authorization server/],
    [
      'a bad authorization server',
      { authorizationServers: ['not a url'] },
      /authorizationServers' must be an absolute URL/,
    ],
    ['a scope with a space', { scopesSupported: ['notes read'] }, /auth\.scopesSupported' must be an array of scopes/],
    ['a verifier without verify()', { verifier: {} as never }, /auth\.verifier' must be a token verifier/],
  ])('refuses %s', (_name, change, message) => {
    const problems = authOptionProblems({ ...good, ...change });
    expect(problems).toEqual([expect.stringMatching(message)]);
  });
});
