/**
 * What a token verifier found in a valid access token. The authenticator still checks that
 * `audience` names this server (whatever the verifier) and that `expiresAt` has not passed.
 * @publicApi
 */
export interface McpVerifiedToken {
  /** `iss` (for introspection: the authorization server that answered). */
  readonly issuer: string;
  readonly subject?: string;
  readonly clientId?: string;
  /** `aud`: must contain this server's resource URI, or the token is refused. */
  readonly audience: readonly string[];
  readonly scopes: readonly string[];
  /** `exp` in seconds since the epoch. */
  readonly expiresAt?: number;
  readonly claims: Readonly<Record<string, unknown>>;
}

/** What a verifier is told besides the token. @publicApi */
export interface McpTokenVerificationContext {
  /** This server's canonical resource URI (the audience every token must name). */
  readonly resource: string;
}

/**
 * Verifies a bearer access token. Shipped implementations: `McpJwtVerifier` (RFC 9068 JWTs
 * checked against the issuer's JWKS) and `McpIntrospectionVerifier` (RFC 7662).
 *
 * Reject an invalid token by throwing `McpInvalidTokenError` (answered 401 `invalid_token`), and
 * an authorization server that cannot be reached by throwing `McpAuthServerUnavailableError`
 * (answered 503: the token may well be valid). Anything else thrown is a server failure (500).
 * @publicApi
 */
export interface McpTokenVerifier {
  verify(token: string, context: McpTokenVerificationContext): Promise<McpVerifiedToken>;
}
