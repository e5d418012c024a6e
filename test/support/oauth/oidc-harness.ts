/**
 * A real OAuth 2.1 / OpenID authorization server for the tests: `oidc-provider` on 127.0.0.1,
 * with the client credentials grant and resource indicators (RFC 8707), issuing JWT access
 * tokens (RFC 9068, `typ: at+jwt`, `aud` = the resource asked for) or opaque ones for
 * introspection (RFC 7662).
 *
 * It can rotate its signing key and go down and come back on the same address, so the resource
 * server's key cache and outage behaviour are tested against the real thing. The signing keys are
 * generated here, so the token forger can sign wrong tokens with the right key.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type ProviderType from 'oidc-provider';

// oidc-provider prints notices on import and construction (development adapter, Node 20 is not
// its LTS target); they are noise in test output, and nothing else writes with this prefix.
for (const level of ['warn', 'info'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('oidc-provider')) return;
    original(...args);
  };
}
const { default: Provider, errors } = await import('oidc-provider');

/** A resource server this provider issues tokens for. */
export interface HarnessResource {
  /** Space-separated scopes the resource accepts. */
  scope: string;
  /** @default 'jwt' */
  format?: 'jwt' | 'opaque';
  /** @default 300 */
  ttlSeconds?: number;
}

export interface HarnessClient {
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes the client may ask for. */
  scope: string;
}

export interface OidcHarnessOptions {
  /** Resource indicator → what the provider issues for it. */
  resources: Record<string, HarnessResource>;
  /** @default one client, `mcp-client` / `mcp-secret`, allowed every scope of every resource */
  clients?: HarnessClient[];
  /** Signing algorithm of access tokens. @default 'ES256' */
  alg?: 'ES256' | 'RS256';
}

/** A private signing key, as the provider holds it. */
export interface HarnessKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateJwk: JWK;
}

/** The default client: allowed every scope. */
export const HARNESS_CLIENT = { clientId: 'mcp-client', clientSecret: 'mcp-secret' } as const;

let keyCounter = 0;

async function newKey(alg: 'ES256' | 'RS256'): Promise<HarnessKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `k${++keyCounter}-${Date.now().toString(36)}`;
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateJwk };
}

export class OidcHarness {
  /** Requests served, by path (`/jwks`, `/.well-known/openid-configuration`, ...). */
  readonly hits = new Map<string, number>();
  private server?: Server;
  private provider!: ProviderType;
  private keys: HarnessKey[];
  private readonly alg: 'ES256' | 'RS256';

  private constructor(
    private readonly port: number,
    private readonly options: OidcHarnessOptions,
    firstKey: HarnessKey,
  ) {
    this.alg = options.alg ?? 'ES256';
    this.keys = [firstKey];
  }

  /** Starts a provider on a free port of 127.0.0.1. */
  static async start(options: OidcHarnessOptions): Promise<OidcHarness> {
    const alg = options.alg ?? 'ES256';
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const address = listener.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    const harness = new OidcHarness(port, options, await newKey(alg));
    await harness.up();
    return harness;
  }

  /** The issuer identifier (`http://127.0.0.1:<port>`). */
  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get jwksUri(): string {
    return `${this.issuer}/jwks`;
  }

  get tokenEndpoint(): string {
    return `${this.issuer}/token`;
  }

  get introspectionEndpoint(): string {
    return `${this.issuer}/token/introspection`;
  }

  /** The key new tokens are signed with. */
  get currentKey(): HarnessKey {
    return this.keys[0];
  }

  /** How many times `path` was requested. */
  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  /**
   * Client credentials grant with a resource indicator: a real access token.
   * @param scope space-separated; the provider grants the intersection with what is allowed
   */
  async token({
    resource,
    scope,
    clientId = HARNESS_CLIENT.clientId,
    clientSecret = HARNESS_CLIENT.clientSecret,
  }: {
    resource: string;
    scope?: string;
    clientId?: string;
    clientSecret?: string;
  }): Promise<string> {
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource });
    if (scope) body.set('scope', scope);
    const response = await fetch(this.tokenEndpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });
    const json = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
    if (!response.ok || !json.access_token) {
      throw new Error(`token request failed: ${response.status} ${JSON.stringify(json)}`);
    }
    return json.access_token;
  }

  /**
   * Rotates the signing key: new tokens are signed with a fresh key. The old key stays published
   * unless `retireOld` (tokens signed with it then no longer verify anywhere).
   */
  async rotateKeys({ retireOld = false }: { retireOld?: boolean } = {}): Promise<HarnessKey> {
    const key = await newKey(this.alg);
    this.keys = retireOld ? [key] : [key, ...this.keys];
    await this.down();
    await this.up();
    return key;
  }

  /** Stops listening: the provider is unreachable (connection refused) until `up()`. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** (Re)starts the provider on the same address, with the current keys. */
  async up(): Promise<void> {
    if (this.server) return;
    this.provider = this.buildProvider();
    const callback = this.provider.callback();
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0];
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      // No keep-alive: a restart (rotation, outage) must not leave clients a dead pooled socket.
      res.setHeader('Connection', 'close');
      callback(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  close(): Promise<void> {
    return this.down();
  }

  private buildProvider(): ProviderType {
    // Read per token request: a test may add resources (apps on new ports) after the start.
    const resources = this.options.resources;
    const declared = [...Object.values(resources), ...(this.options.clients ?? [])].flatMap((r) => r.scope.split(' '));
    const allScopes = [...new Set(declared.filter(Boolean))].join(' ');
    const clients = this.options.clients ?? [{ ...HARNESS_CLIENT, scope: allScopes }];
    const alg = this.alg;
    const provider = new Provider(this.issuer, {
      clients: clients.map((client) => ({
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: client.scope,
      })),
      jwks: { keys: this.keys.map((key) => key.privateJwk) as never },
      scopes: allScopes.split(' '),
      clientDefaults: { id_token_signed_response_alg: alg },
      ttl: {
        ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) =>
          token.resourceServer?.accessTokenTTL ?? 300,
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true, allowedPolicy: async () => true },
        resourceIndicators: {
          enabled: true,
          defaultResource: async () => undefined,
          useGrantedResource: async () => false,
          getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
            const resource = resources[indicator];
            if (!resource) throw new errors.InvalidTarget();
            return {
              scope: resource.scope,
              audience: indicator,
              accessTokenTTL: resource.ttlSeconds ?? 300,
              accessTokenFormat: resource.format ?? 'jwt',
              ...(resource.format === 'opaque' ? {} : { jwt: { sign: { alg } } }),
            };
          },
        },
      },
    });
    // The provider logs every grant error to the console by default.
    provider.on('server_error', () => undefined);
    return provider;
  }
}
