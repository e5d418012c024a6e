import { createHash } from 'node:crypto';

/**
 * Who is calling: the facts of a verified access token, per request (`ctx.auth`, `@McpAuth()`).
 * Never the raw token, unless `auth.exposeToken` asks for it.
 * @publicApi
 */
export interface McpPrincipal {
  /** `iss`: the authorization server that issued the token. */
  readonly issuer: string;
  /** `sub`: the resource owner, or the client itself for a client credentials token. */
  readonly subject?: string;
  /** `client_id`: the OAuth client acting. */
  readonly clientId?: string;
  /** Scopes granted to the token (its `scope`, split on spaces). */
  readonly scopes: readonly string[];
  /** `aud`: the audiences of the token; always includes this server's resource URI. */
  readonly audience: readonly string[];
  /** `exp`, in seconds since the epoch, when the token has one. */
  readonly expiresAt?: number;
  /** Every claim of the token (the JWT payload, or the introspection answer). */
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * The access token itself, only with `auth.exposeToken: true`. It was issued for this server:
   * never forward it to another service (no token passthrough); use a token of your own there.
   */
  readonly token?: string;
}

/**
 * The identity a session (or a modern request state) belongs to: issuer, subject and client, as
 * python-sdk#2718 records them. Plain data, so any session store can hold it.
 * @publicApi
 */
export interface McpPrincipalBinding {
  readonly issuer: string;
  readonly subject?: string;
  readonly clientId?: string;
}

/** The binding of a principal (issuer, subject, client id), without scopes or claims. */
export function principalBinding(principal: McpPrincipal): McpPrincipalBinding {
  const binding: { issuer: string; subject?: string; clientId?: string } = { issuer: principal.issuer };
  if (principal.subject !== undefined) binding.subject = principal.subject;
  if (principal.clientId !== undefined) binding.clientId = principal.clientId;
  return binding;
}

/**
 * True when `principal` is the one `binding` names. Scopes do not take part: a new token of the
 * same principal with more scopes (step-up) is the same principal. Fails closed: a bound session
 * and an anonymous request (or the reverse) never match; two anonymous ones do (auth is off).
 */
export function isSamePrincipal(
  binding: McpPrincipalBinding | undefined,
  principal: McpPrincipal | McpPrincipalBinding | undefined,
): boolean {
  if (binding === undefined || principal === undefined) return binding === undefined && principal === undefined;
  return (
    binding.issuer === principal.issuer &&
    binding.subject === principal.subject &&
    binding.clientId === principal.clientId
  );
}

/** A string naming a principal, for maps keyed by caller (rate limits, quotas). */
export function principalKey(principal: McpPrincipal | McpPrincipalBinding): string {
  return JSON.stringify([principal.issuer, principal.subject ?? null, principal.clientId ?? null]);
}

/**
 * A short opaque digest of a principal's binding, to bind state that travels through the client
 * (an MRTR `requestState`) or waits for it (a server→client request) to the principal: the state
 * of one principal is then refused to every other. Two principals have the same digest exactly
 * when `isSamePrincipal` holds, so a shared session store can check a lookup's principal where
 * the session is (in one round trip) by comparing digests. `undefined` for no principal.
 * @publicApi
 */
export function principalDigest(principal: McpPrincipal | McpPrincipalBinding | undefined): string | undefined {
  return principal && createHash('sha256').update(principalKey(principal)).digest('base64url');
}
