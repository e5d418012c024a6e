/**
 * The invalid tokens a resource server must refuse (docs/authorization.md), each with the `error_description` the server
 * answers: one table for every transport (Streamable HTTP, the WebSocket upgrade, legacy SSE).
 */
import type { OidcHarness } from './oidc-harness.js';
import { accessTokenClaims, forgeHs256WithPublicKey, forgeSigned, forgeUnsigned } from './token-forger.js';

/** The case names, known before any server starts (for `it.each`). */
export const INVALID_TOKEN_CASES = [
  'malformed',
  'expired',
  'not yet valid',
  'wrong issuer',
  'wrong audience',
  'missing audience',
  'wrong typ',
  'unknown kid',
  'alg none',
  'HS256 with the public key',
] as const;

export type InvalidTokenCaseName = (typeof INVALID_TOKEN_CASES)[number];

export interface InvalidTokenCase {
  readonly name: InvalidTokenCaseName;
  readonly token: () => Promise<string>;
  readonly description: string;
}

/**
 * @param provider the server's authorization server (its real key signs the wrong claims)
 * @param foreign another authorization server, whose real tokens name the same resource
 * @param resource the server's canonical resource URI
 * @param elsewhere another resource `provider` issues real tokens for
 */
export function invalidTokenCases(
  provider: OidcHarness,
  foreign: OidcHarness,
  resource: string,
  elsewhere: string,
): Map<InvalidTokenCaseName, InvalidTokenCase> {
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (overrides: Record<string, unknown> = {}) => ({
    ...accessTokenClaims({ issuer: provider.issuer, audience: resource }),
    ...overrides,
  });
  const signed = (overrides: Record<string, unknown>, header?: Record<string, unknown>) => () =>
    forgeSigned(provider.currentKey, claims(overrides), header);
  const cases: InvalidTokenCase[] = [
    { name: 'malformed', token: async () => 'not.a.jwt', description: 'The access token is not a well-formed JWT' },
    { name: 'expired', token: signed({ exp: now() - 120 }), description: 'The access token has expired' },
    { name: 'not yet valid', token: signed({ nbf: now() + 600 }), description: 'The token is not valid yet (nbf)' },
    {
      name: 'wrong issuer',
      token: () => foreign.token({ resource }),
      description: 'The token was not issued by a trusted authorization server',
    },
    {
      name: 'wrong audience',
      token: () => provider.token({ resource: elsewhere }),
      description: 'The token was not issued for this resource (aud)',
    },
    { name: 'missing audience', token: signed({ aud: undefined }), description: "The token has no 'aud' claim" },
    {
      name: 'wrong typ',
      token: signed({}, { typ: 'JWT' }),
      description: "The token's type 'JWT' is not an access token type (at+jwt)",
    },
    {
      name: 'unknown kid',
      token: signed({}, { kid: 'no-such-key' }),
      description: "No key of the issuer matches the token's key id",
    },
    {
      name: 'alg none',
      token: async () => forgeUnsigned(claims(), provider.currentKey.kid),
      description: "The token's signature algorithm 'none' is not accepted",
    },
    {
      name: 'HS256 with the public key',
      token: () => forgeHs256WithPublicKey(provider.currentKey, claims()),
      description: "The token's signature algorithm 'HS256' is not accepted",
    },
  ];
  return new Map(cases.map((entry) => [entry.name, entry]));
}
