import { createHash } from 'node:crypto';
import { McpAuthServerUnavailableError, McpInvalidTokenError } from './verifier.errors.js';
import type {
  McpTokenVerificationContext,
  McpTokenVerifier,
  McpVerifiedToken,
} from '../../interfaces/mcp-token-verifier.interface.js';
import { requestAuthServer } from './auth-server-http.js';
import { AuthorizationServerMetadata } from './authorization-server-metadata.js';
import { audiencesOf, scopesOf } from './token-claims.js';
import { McpLogger } from '../../logging/mcp-logger.js';

/** Options of `McpIntrospectionVerifier`. @publicApi */
export interface McpIntrospectionVerifierOptions {
  /** The authorization server's issuer identifier; an answer naming another `iss` is refused. */
  issuer: string;
  /** This server's canonical resource URI: the answer's `aud` must contain it (a missing `aud` is refused). */
  audience: string;
  /** This resource server's client credentials at the authorization server (HTTP Basic, RFC 7662 §2.1). */
  clientId: string;
  clientSecret: string;
  /** @default the `introspection_endpoint` of the issuer's metadata */
  endpoint?: string;
  /**
   * How long an answer is reused for the same token. An active token is never reused past its
   * `exp`; a revoked one is honoured at most this late.
   * @default 30_000
   */
  cacheTtlMs?: number;
  /** Most answers cached at once (the oldest go first). @default 10_000 */
  maxCacheEntries?: number;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. @default 30 */
  clockToleranceSeconds?: number;
  /** @default 5_000 */
  timeoutMs?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

interface CachedAnswer {
  readonly until: number;
  readonly token?: McpVerifiedToken;
  readonly refusal?: string;
}

/** RFC 7662 `token_type` values that are access tokens usable as bearer tokens. */
const ACCESS_TOKEN_TYPES = new Set(['bearer', 'access_token']);

/**
 * Verifies opaque access tokens by asking the authorization server (OAuth 2.0 Token
 * Introspection, RFC 7662), with a short cache keyed by a hash of the token (the token itself is
 * never kept). An active answer must name this server in `aud`, the configured issuer (when it
 * names one), and a time window that includes now.
 * @publicApi
 */
export class McpIntrospectionVerifier implements McpTokenVerifier {
  private readonly logger = new McpLogger('McpAuth');
  private readonly cache = new Map<string, CachedAnswer>();
  private readonly metadata: AuthorizationServerMetadata;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly tolerance: number;

  constructor(private readonly options: McpIntrospectionVerifierOptions) {
    if (!URL.canParse(options.issuer) || !URL.canParse(options.audience)) {
      throw new TypeError("McpIntrospectionVerifier: 'issuer' and 'audience' must be URLs");
    }
    if (!options.clientId || !options.clientSecret) {
      throw new TypeError("McpIntrospectionVerifier: 'clientId' and 'clientSecret' are required");
    }
    this.metadata = new AuthorizationServerMetadata(options.issuer, options);
    this.ttlMs = options.cacheTtlMs ?? 30_000;
    this.maxEntries = options.maxCacheEntries ?? 10_000;
    this.tolerance = options.clockToleranceSeconds ?? 30;
  }

  async verify(token: string, _context?: McpTokenVerificationContext): Promise<McpVerifiedToken> {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    let answer = this.cache.get(key);
    if (!answer || answer.until <= now) {
      answer = await this.introspect(token, now);
      this.remember(key, answer);
    }
    if (answer.refusal !== undefined) throw new McpInvalidTokenError(answer.refusal);
    return answer.token!;
  }

  private async introspect(token: string, now: number): Promise<CachedAnswer> {
    const endpoint = this.options.endpoint ?? (await this.metadata.endpoint('introspection_endpoint'));
    const credentials = `${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`;
    const answer = await requestAuthServer(
      endpoint,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      },
      this.options,
    );
    if (answer.status !== 200 || !answer.json) {
      // A 401 here means our own credentials are wrong: a server problem, not the caller's.
      this.logger.error(`Token introspection at ${endpoint} answered HTTP ${answer.status}`);
      throw new McpAuthServerUnavailableError(`Token introspection answered HTTP ${answer.status}`);
    }
    const refuse = (refusal: string): CachedAnswer => ({ until: now + this.ttlMs, refusal });
    const claims = answer.json;
    if (claims.active !== true) return refuse('The access token is not active');
    const type = claims.token_type;
    if (type !== undefined && !(typeof type === 'string' && ACCESS_TOKEN_TYPES.has(type.toLowerCase()))) {
      return refuse('The token is not an access token');
    }
    if (claims.iss !== undefined && claims.iss !== this.options.issuer) {
      return refuse('The token was not issued by a trusted authorization server');
    }
    const audience = audiencesOf(claims.aud);
    if (!audience.includes(this.options.audience)) return refuse('The token was not issued for this resource (aud)');
    const seconds = now / 1000;
    if (typeof claims.exp === 'number' && claims.exp + this.tolerance <= seconds) {
      return refuse('The access token has expired');
    }
    if (typeof claims.nbf === 'number' && claims.nbf - this.tolerance > seconds) {
      return refuse('The token is not valid yet (nbf)');
    }
    const until = Math.min(now + this.ttlMs, typeof claims.exp === 'number' ? claims.exp * 1000 : Infinity);
    return {
      until,
      token: {
        issuer: this.options.issuer,
        subject: typeof claims.sub === 'string' ? claims.sub : undefined,
        clientId: typeof claims.client_id === 'string' ? claims.client_id : undefined,
        audience,
        scopes: scopesOf(claims),
        expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
        claims,
      },
    };
  }

  private remember(key: string, answer: CachedAnswer): void {
    this.cache.delete(key);
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(key, answer);
  }
}
