// A development authorization server for the "Run it" example of docs/authorization.md: oidc-provider
// (a certified OpenID Connect / OAuth 2.1 implementation) on 127.0.0.1, with one confidential
// client allowed the client credentials grant, resource indicators binding each token to the
// MCP server it is for, and RFC 9068 JWT access tokens. In-memory and for local use only.
//
//   node examples/authorization/dev-authorization-server.mjs [--port 4000] [--resource http://127.0.0.1:5000/mcp]
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
};
const port = Number(option('port', '4000'));
const resource = option('resource', 'http://127.0.0.1:5000/mcp');
const client = { id: option('client-id', 'demo-client'), secret: option('client-secret', 'demo-secret') };
const scope = 'notes:read notes:write';
const issuer = `http://127.0.0.1:${port}`;

// oidc-provider reminds on every start that its in-memory adapter is for development: this is.
for (const level of ['warn', 'info']) {
  const original = console[level].bind(console);
  console[level] = (...args) => (String(args[0]).includes('oidc-provider') ? undefined : original(...args));
}
const { default: Provider, errors } = await import('oidc-provider');

const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), kid: 'dev-1', alg: 'ES256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: client.id,
      client_secret: client.secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope,
    },
  ],
  jwks: { keys: [signingKey] },
  scopes: scope.split(' '),
  clientDefaults: { id_token_signed_response_alg: 'ES256' },
  ttl: { ClientCredentials: () => 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => undefined,
      useGrantedResource: async () => false,
      getResourceServerInfo: async (_ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        return {
          scope,
          audience: resource,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
});

const server = createServer(provider.callback());
server.listen(port, '127.0.0.1', () => {
  console.log(`Authorization server ${issuer} (client ${client.id}, tokens for ${resource})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));
