/**
 * A token verifier whose tokens the test mints itself, each with the principal, scopes and
 * lifetime it chooses: for tests of what happens when a token expires while the stream it
 * opened is still open, without an authorization server and without waiting minutes.
 */
import {
  McpInvalidTokenError,
  type McpTokenVerificationContext,
  type McpTokenVerifier,
  type McpVerifiedToken,
} from '@app/mcp';

/** The issuer of every stub token (a loopback URL, as `auth.authorizationServers` requires). */
export const STUB_ISSUER = 'http://127.0.0.1/stub-issuer';

/** What a minted token says. */
export interface StubTokenClaims {
  /** `sub` and `client_id` (one principal per name). */
  subject: string;
  /** Milliseconds until `exp`. @default one hour */
  lifetimeMs?: number;
  scopes?: string[];
}

export class StubTokenVerifier implements McpTokenVerifier {
  private readonly tokens = new Map<string, { subject: string; expiresAt: number; scopes: string[] }>();
  private minted = 0;

  /** A fresh token; `exp` is a fraction of a second precise, so short lifetimes stay exact. */
  mint({ subject, lifetimeMs = 3_600_000, scopes = [] }: StubTokenClaims): string {
    const token = `stub-${subject}-${++this.minted}`;
    this.tokens.set(token, { subject, expiresAt: (Date.now() + lifetimeMs) / 1000, scopes });
    return token;
  }

  async verify(token: string, { resource }: McpTokenVerificationContext): Promise<McpVerifiedToken> {
    const found = this.tokens.get(token);
    if (!found) throw new McpInvalidTokenError('Unknown stub token');
    return {
      issuer: STUB_ISSUER,
      subject: found.subject,
      clientId: found.subject,
      audience: [resource],
      scopes: found.scopes,
      expiresAt: found.expiresAt,
      claims: { sub: found.subject },
    };
  }
}
