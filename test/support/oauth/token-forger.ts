/**
 * Wrong tokens on purpose, for the token rejections (docs/authorization.md): signed with the
 * provider's real key but with a bad claim or header, unsigned (`alg: none`), or HMAC-signed with
 * the provider's *public* key as the secret (the RS256→HS256 confusion attack).
 */
import { createPublicKey } from 'node:crypto';
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import type { HarnessKey } from './oidc-harness.js';

export interface AccessTokenClaims extends JWTPayload {
  scope?: string;
  client_id?: string;
}

/** The claims of a good RFC 9068 access token; each test changes one of them. */
export function accessTokenClaims({
  issuer,
  audience,
  scope = 'notes:read notes:write',
  subject = 'mcp-client',
  clientId = 'mcp-client',
  expiresInSeconds = 300,
}: {
  issuer: string;
  audience: string | string[];
  scope?: string;
  subject?: string;
  clientId?: string;
  expiresInSeconds?: number;
}): AccessTokenClaims {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: issuer,
    aud: audience,
    sub: subject,
    client_id: clientId,
    scope,
    iat: now,
    exp: now + expiresInSeconds,
    jti: `forged-${now}-${Math.random().toString(36).slice(2)}`,
  };
}

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Drops claims set to `undefined` (to forge a token without `aud`, `exp`, ...). */
const defined = (claims: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));

/**
 * Signs `claims` with the provider's key. The header is `{ alg, kid, typ: 'at+jwt' }` unless
 * `header` overrides a member (`{ typ: 'JWT' }`, `{ kid: 'unknown' }`, `{ typ: undefined }`).
 */
export async function forgeSigned(
  key: HarnessKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const privateKey = await importJWK(key.privateJwk, key.alg);
  const protectedHeader = defined({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header });
  return new SignJWT(defined(claims)).setProtectedHeader(protectedHeader as { alg: string }).sign(privateKey);
}

/** An unsecured JWT (`alg: none`, empty signature). */
export function forgeUnsigned(claims: Record<string, unknown>, kid?: string): string {
  const header = defined({ alg: 'none', typ: 'at+jwt', kid });
  return `${base64url(header)}.${base64url(defined(claims))}.`;
}

/**
 * HS256 with the provider's public key (PEM) as the HMAC secret: what a verifier that takes the
 * algorithm from the token and the key from the JWKS would accept.
 */
export async function forgeHs256WithPublicKey(key: HarnessKey, claims: Record<string, unknown>): Promise<string> {
  const { d: _d, ...publicJwk } = key.privateJwk as Record<string, unknown>;
  const pem = createPublicKey({ key: publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  return new SignJWT(defined(claims))
    .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' })
    .sign(new Uint8Array(Buffer.from(pem)));
}
