import { describe, expect, it } from '@jest/globals';
import { bearerChallenge } from './www-authenticate.js';

const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

describe('bearerChallenge', () => {
  it('names the metadata and the scopes on a 401 without a token (no error code, RFC 6750 §3.1)', () => {
    expect(bearerChallenge({ resourceMetadata: PRM, scope: ['notes:read', 'notes:write'] })).toBe(
      `Bearer scope="notes:read notes:write", resource_metadata="${PRM}"`,
    );
  });

  it('leaves out an empty scope list', () => {
    expect(bearerChallenge({ resourceMetadata: PRM, scope: [] })).toBe(`Bearer resource_metadata="${PRM}"`);
  });

  it('puts the error and its description first', () => {
    expect(
      bearerChallenge({
        resourceMetadata: PRM,
        scope: ['a'],
        error: 'insufficient_scope',
        errorDescription: 'needs a',
      }),
    ).toBe(`Bearer error="insufficient_scope", error_description="needs a", scope="a", resource_metadata="${PRM}"`);
  });

  it('keeps quoted strings well-formed whatever the description holds', () => {
    const header = bearerChallenge({
      resourceMetadata: PRM,
      error: 'invalid_token',
      errorDescription: 'bad "token"\\ here\r\nX-Injected: 1 – é',
    });
    expect(header).toBe(
      `Bearer error="invalid_token", error_description="bad  token   here  X-Injected: 1    ", resource_metadata="${PRM}"`,
    );
    expect(header).not.toMatch(/[\r\n]/);
  });
});
