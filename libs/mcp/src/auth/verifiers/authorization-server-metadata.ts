import { McpAuthServerUnavailableError } from './verifier.errors.js';
import { requestAuthServer, type AuthServerHttpOptions } from './auth-server-http.js';

/** How long discovered metadata is reused before it is fetched again. */
const METADATA_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * Where an issuer's metadata may be, in the order MCP clients try them (2025-11-25,
 * "Authorization Server Metadata Discovery"): RFC 8414 with path insertion, OpenID Connect
 * Discovery with path insertion, then OpenID Connect Discovery with the path appended.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const urls = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
  ];
  if (path) urls.push(`${url.origin}${path}/.well-known/openid-configuration`);
  return urls;
}

/**
 * The metadata of one authorization server (RFC 8414 / OpenID Connect Discovery), discovered on
 * first use and cached. A document whose `issuer` is not exactly the configured one is refused
 * (RFC 8414 §3.3): its keys could be anyone's.
 */
export class AuthorizationServerMetadata {
  private document?: Record<string, unknown>;
  private fetchedAt = 0;
  private pending?: Promise<Record<string, unknown>>;

  constructor(
    readonly issuer: string,
    private readonly http: AuthServerHttpOptions,
  ) {}

  /** One member of the metadata (`jwks_uri`, `introspection_endpoint`), as a URL. */
  async endpoint(name: string): Promise<string> {
    const value = (await this.get())[name];
    if (typeof value !== 'string' || !URL.canParse(value)) {
      throw new McpAuthServerUnavailableError(`The metadata of ${this.issuer} has no usable '${name}'`);
    }
    return value;
  }

  private async get(): Promise<Record<string, unknown>> {
    if (this.document && Date.now() - this.fetchedAt < METADATA_MAX_AGE_MS) return this.document;
    this.pending ??= this.discover().finally(() => (this.pending = undefined));
    try {
      return await this.pending;
    } catch (error) {
      // Stale metadata beats none while the server is away; keys are checked on their own.
      if (this.document) return this.document;
      throw error;
    }
  }

  private async discover(): Promise<Record<string, unknown>> {
    let unavailable: McpAuthServerUnavailableError | undefined;
    for (const url of metadataUrls(this.issuer)) {
      let answer;
      try {
        answer = await requestAuthServer(url, { method: 'GET' }, this.http);
      } catch (error) {
        if (!(error instanceof McpAuthServerUnavailableError)) throw error;
        unavailable = error;
        continue;
      }
      if (answer.status !== 200 || !answer.json) continue;
      if (answer.json.issuer !== this.issuer) {
        throw new McpAuthServerUnavailableError(
          `${url} names the issuer '${String(answer.json.issuer)}', not '${this.issuer}': refusing its metadata`,
        );
      }
      this.document = answer.json;
      this.fetchedAt = Date.now();
      return answer.json;
    }
    throw (
      unavailable ??
      new McpAuthServerUnavailableError(
        `No authorization server metadata found for ${this.issuer} (tried ${metadataUrls(this.issuer).join(', ')})`,
      )
    );
  }
}
