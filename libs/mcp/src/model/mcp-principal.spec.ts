import { describe, expect, it } from '@jest/globals';
import { isSamePrincipal, principalBinding, principalKey, type McpPrincipal } from './mcp-principal.js';

const principal = (overrides: Partial<McpPrincipal> = {}): McpPrincipal => ({
  issuer: 'https://as.example',
  subject: 'alice',
  clientId: 'app',
  scopes: ['notes:read'],
  audience: ['https://mcp.example/mcp'],
  claims: {},
  ...overrides,
});

describe('principal binding', () => {
  it('binds issuer, subject and client id, and nothing else', () => {
    expect(principalBinding(principal())).toEqual({ issuer: 'https://as.example', subject: 'alice', clientId: 'app' });
    expect(principalBinding(principal({ subject: undefined }))).toEqual({
      issuer: 'https://as.example',
      clientId: 'app',
    });
  });

  it('matches the same principal with other scopes (step-up keeps the session)', () => {
    const binding = principalBinding(principal());
    expect(isSamePrincipal(binding, principal({ scopes: ['notes:read', 'notes:write'] }))).toBe(true);
  });

  it.each<[string, Partial<McpPrincipal>]>([
    ['another subject', { subject: 'bob' }],
    ['another client', { clientId: 'other-app' }],
    ['another issuer', { issuer: 'https://evil.example' }],
    ['no subject', { subject: undefined }],
  ])('tells apart %s', (_name, overrides) => {
    expect(isSamePrincipal(principalBinding(principal()), principal(overrides))).toBe(false);
  });

  it('fails closed between a bound session and an anonymous request, both ways', () => {
    expect(isSamePrincipal(principalBinding(principal()), undefined)).toBe(false);
    expect(isSamePrincipal(undefined, principal())).toBe(false);
    expect(isSamePrincipal(undefined, undefined)).toBe(true);
  });

  it('keys principals without collisions between fields', () => {
    expect(principalKey({ issuer: 'a', subject: 'b c' })).not.toBe(principalKey({ issuer: 'a b', subject: 'c' }));
    expect(principalKey(principal())).toBe(principalKey(principalBinding(principal())));
  });
});
