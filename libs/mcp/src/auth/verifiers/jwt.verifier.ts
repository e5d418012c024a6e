import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { McpAuthServerUnavailableError, McpInvalidTokenError } from './verifier.errors.js';
import type {
  McpTokenVerificationContext,
  McpTokenVerifier,
  McpVerifiedToken,
} from '../../interfaces/mcp-token-verifier.interface.js';
import { AuthorizationServerMetadata } from './authorization-server-metadata.js';
import { RemoteKeySet } from './remote-key-set.js';
import { audiencesOf, scopesOf } from './token-claims.js';

/** Asymmetric JWS algorithms: the only ones a resource server can check with public keys. */
export const DEFAULT_JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** Options of `McpJwtVerifier`. @publicApi */
export interface McpJwtVerifierOptions {
  /** The trusted issuer(s): a token's `iss` must be exactly one of them. */
  issuer: string | readonly string[];
  /** This server's canonical resource URI: the token's `aud` must contain it. */
  audience: string;
  /**
   * Where the signing keys are. Only with a single issuer.
   * @default the `jwks_uri` of the issuer's metadata (RFC 8414, else OpenID Connect Discovery)
   */
  jwksUri?: string;
  /** Accepted signature algorithms; symmetric ones (`HS*`) and `none` are refused. @default DEFAULT_JWT_ALGORITHMS */
  algorithms?: readonly string[];
  /**
   * Accepted `typ` header values, compared without case and without an `application/` prefix.
   * RFC 9068 access tokens are `at+jwt`; accepting `JWT` as well lets ID tokens and other JWTs
   * of the same issuer through, so only add it for an authorization server that needs it.
   * @default ['at+jwt']
   */
  types?: readonly string[];
  /** Claims that must be present besides `iss`, `aud` and `exp` (always required). @default ['sub'] */
  requiredClaims?: readonly string[];
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds. @default 30 */
  clockToleranceSeconds?: number;
  /** Age after which a fetched key set is fetched again. @default 600_000 (10 minutes) */
  jwksMaxAgeMs?: number;
  /** Least time between two key set fetches caused by an unknown `kid`. @default 30_000 */
  jwksCooldownMs?: number;
  /** Timeout of each request to the authorization server. @default 5_000 */
  timeoutMs?: number;
  /** Replaces `fetch` for the requests to the authorization server. @default globalThis.fetch */
  fetch?: typeof fetch;
}

const normalizeType = (type: string): string => type.toLowerCase().replace(/^application\//, '');

/**
 * Verifies RFC 9068 JWT access tokens with jose: the signature against the issuer's published
 * keys (discovered from its metadata, cached, rotation picked up), an algorithm allow-list,
 * `iss`, `aud` (must name this server), `exp` and `nbf` with a small clock skew, and `typ`.
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   serverInfo,
 *   auth: {
 *     resource: 'https://mcp.example.com/mcp',
 *     authorizationServers: ['https://auth.example.com'],
 *     verifier: new McpJwtVerifier({ issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp' }),
 *   },
 * });
 * ```
 * @publicApi
 */
export class McpJwtVerifier implements McpTokenVerifier {
  private readonly issuers: ReadonlyMap<string, RemoteKeySet>;
  private readonly algorithms: string[];
  private readonly types: Set<string>;
  private readonly requiredClaims: string[];
  private readonly clockTolerance: number;

  constructor(private readonly options: McpJwtVerifierOptions) {
    const issuers = typeof options.issuer === 'string' ? [options.issuer] : [...options.issuer];
    const problems = jwtVerifierProblems(options, issuers);
    if (problems.length > 0) throw new TypeError(`McpJwtVerifier: ${problems.join('; ')}`);
    const http = { timeoutMs: options.timeoutMs, fetch: options.fetch };
    const timing = { maxAgeMs: options.jwksMaxAgeMs ?? 600_000, cooldownMs: options.jwksCooldownMs ?? 30_000 };
    this.issuers = new Map(
      issuers.map((issuer) => {
        const metadata = new AuthorizationServerMetadata(issuer, http);
        const locate = options.jwksUri ? async () => options.jwksUri! : () => metadata.endpoint('jwks_uri');
        return [issuer, new RemoteKeySet(locate, timing, http)];
      }),
    );
    this.algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
    this.types = new Set((options.types ?? ['at+jwt']).map(normalizeType));
    this.requiredClaims = ['exp', ...(options.requiredClaims ?? ['sub'])];
    this.clockTolerance = options.clockToleranceSeconds ?? 30;
  }

  /** The audience is this verifier's own (`options.audience`); the context is not needed. */
  async verify(token: string, _context?: McpTokenVerificationContext): Promise<McpVerifiedToken> {
    // Checks that need no key come first: a malformed or foreign token never costs a fetch.
    const issuer = this.precheck(token);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.issuers.get(issuer)!.resolve, {
        algorithms: this.algorithms,
        issuer,
        audience: this.options.audience,
        clockTolerance: this.clockTolerance,
        requiredClaims: this.requiredClaims,
      }));
    } catch (error) {
      throw rejection(error);
    }
    return {
      issuer: payload.iss!,
      subject: payload.sub,
      clientId: clientIdOf(payload),
      audience: audiencesOf(payload.aud),
      scopes: scopesOf(payload),
      expiresAt: payload.exp,
      claims: payload,
    };
  }

  /** Header and issuer checks on the decoded (unverified) token; returns the trusted issuer. */
  private precheck(token: string): string {
    let header;
    let payload;
    try {
      header = decodeProtectedHeader(token);
      payload = decodeJwt(token);
    } catch {
      throw new McpInvalidTokenError('The access token is not a well-formed JWT');
    }
    if (typeof header.alg !== 'string' || !this.algorithms.includes(header.alg)) {
      throw new McpInvalidTokenError(`The token's signature algorithm '${String(header.alg)}' is not accepted`);
    }
    if (typeof header.typ !== 'string' || !this.types.has(normalizeType(header.typ))) {
      throw new McpInvalidTokenError(`The token's type '${String(header.typ)}' is not an access token type (at+jwt)`);
    }
    if (typeof payload.iss !== 'string' || !this.issuers.has(payload.iss)) {
      throw new McpInvalidTokenError('The token was not issued by a trusted authorization server');
    }
    return payload.iss;
  }
}

/** Problems of the options, as messages; empty when they can work. */
export function jwtVerifierProblems(options: McpJwtVerifierOptions, issuers: readonly string[]): string[] {
  const problems: string[] = [];
  if (issuers.length === 0) problems.push("'issuer' must name at least one issuer");
  for (const issuer of issuers) if (!URL.canParse(issuer)) problems.push(`issuer '${issuer}' is not a URL`);
  if (typeof options.audience !== 'string' || !URL.canParse(options.audience)) {
    problems.push("'audience' must be this server's resource URI");
  }
  if (options.jwksUri !== undefined && (issuers.length !== 1 || !URL.canParse(options.jwksUri))) {
    problems.push("'jwksUri' must be a URL, and can only be given with a single issuer");
  }
  for (const alg of options.algorithms ?? []) {
    if (!(DEFAULT_JWT_ALGORITHMS as readonly string[]).includes(alg)) {
      problems.push(`algorithm '${alg}' is not an asymmetric JWS algorithm (HS* and none are never accepted)`);
    }
  }
  return problems;
}

/** The client id: RFC 9068 `client_id`, else `azp` (OpenID Connect and several providers). */
const clientIdOf = (payload: JWTPayload): string | undefined => {
  const value = payload.client_id ?? payload.azp;
  return typeof value === 'string' ? value : undefined;
};

/** What a jose failure means for the client: an invalid token (401), or a server that is away (503). */
function rejection(error: unknown): Error {
  if (error instanceof McpAuthServerUnavailableError || error instanceof McpInvalidTokenError) return error;
  if (error instanceof errors.JWTExpired)
    return new McpInvalidTokenError('The access token has expired', { cause: error });
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new McpInvalidTokenError(claimProblem(error.claim, error.reason), { cause: error });
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new McpInvalidTokenError("No key of the issuer matches the token's key id", { cause: error });
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return new McpInvalidTokenError('The token names no key id and several keys of the issuer match', {
      cause: error,
    });
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new McpInvalidTokenError('The token signature does not verify', { cause: error });
  }
  if (error instanceof errors.JOSEError) {
    return new McpInvalidTokenError('The access token is not a valid JWT', { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

function claimProblem(claim: string, reason: string): string {
  if (reason === 'missing') return `The token has no '${claim}' claim`;
  switch (claim) {
    case 'aud':
      return 'The token was not issued for this resource (aud)';
    case 'nbf':
      return 'The token is not valid yet (nbf)';
    case 'iat':
      return 'The token was issued in the future (iat)';
    case 'iss':
      return 'The token was not issued by a trusted authorization server';
    default:
      return `The token's '${claim}' claim is not acceptable`;
  }
}
