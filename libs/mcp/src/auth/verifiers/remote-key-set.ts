import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';
import { McpAuthServerUnavailableError } from './verifier.errors.js';
import { requestAuthServer, type AuthServerHttpOptions } from './auth-server-http.js';
import { McpLogger } from '../../logging/mcp-logger.js';

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;
type VerificationKey = Awaited<ReturnType<LocalKeySet>>;

/** How a remote key set is cached. */
export interface RemoteKeySetTiming {
  /** A key set older than this is fetched again on next use. */
  readonly maxAgeMs: number;
  /** The least time between two fetches caused by a key id the set does not have. */
  readonly cooldownMs: number;
}

/**
 * The signing keys of one issuer (its JWKS), fetched on first use and cached. Key selection and
 * every signature check are jose's (`createLocalJWKSet`); this class only decides when to fetch:
 *
 * - a token whose `kid` is not in the set fetches it again (rotation is picked up without a
 *   restart), at most once per cooldown, so random `kid`s cannot flood the authorization server;
 * - a set past its age is fetched again, and while the server cannot be reached the keys already
 *   held keep working (an outage must not lock out every caller);
 * - a token that needs a key only a fetch could bring, while the server cannot be reached, fails
 *   with `McpAuthServerUnavailableError` (503), never as an invalid token (401).
 */
export class RemoteKeySet {
  private readonly logger = new McpLogger('McpAuth');
  private local?: LocalKeySet;
  private fetchedAt = 0;
  private pending?: Promise<void>;

  constructor(
    private readonly locate: () => Promise<string>,
    private readonly timing: RemoteKeySetTiming,
    private readonly http: AuthServerHttpOptions,
  ) {}

  /** The key for a token's protected header (a resolver for jose's `jwtVerify`). */
  readonly resolve = async (header: JWSHeaderParameters): Promise<VerificationKey> => {
    if (!this.local) await this.refresh();
    else if (Date.now() - this.fetchedAt >= this.timing.maxAgeMs) {
      await this.refresh().catch((error: unknown) =>
        this.logger.warn(`Keeping the cached keys: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
    try {
      return await this.local!(header);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || this.coolingDown()) throw error;
      await this.refresh();
      return this.local!(header);
    }
  };

  private coolingDown(): boolean {
    return Date.now() - this.fetchedAt < this.timing.cooldownMs;
  }

  /** Fetches the set once for every caller waiting on it; throws when it cannot be had. */
  private refresh(): Promise<void> {
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetch(): Promise<void> {
    const url = await this.locate();
    const answer = await requestAuthServer(url, { method: 'GET' }, this.http);
    const keys = answer.json?.keys;
    if (answer.status !== 200 || !Array.isArray(keys)) {
      throw new McpAuthServerUnavailableError(`${url} answered ${answer.status} without a JSON Web Key Set`);
    }
    this.local = createLocalJWKSet(answer.json as unknown as JSONWebKeySet);
    this.fetchedAt = Date.now();
  }
}
