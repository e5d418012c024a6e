import type { McpTokenVerifier } from './mcp-token-verifier.interface.js';

/**
 * Resource-server mode (`McpModule.forRoot({ auth })`): the server is an OAuth 2.1 resource
 * server. Every HTTP entry point (POST, GET and DELETE on the endpoint, the WebSocket upgrade,
 * legacy SSE) then needs `Authorization: Bearer` with a token issued for `resource`; stdio stays
 * local and unauthenticated. Protected Resource Metadata (RFC 9728) is served at the well-known
 * URIs, and every 401 names it.
 * @publicApi
 */
export interface McpAuthOptions {
  /**
   * The canonical URI of this MCP server (RFC 8707), as clients reach it, for example
   * `https://mcp.example.com/mcp`. Tokens must name it in `aud`; it is the `resource` of the
   * metadata document. `https:`, or `http:` on a loopback host.
   */
  resource: string;
  /** Issuer identifiers of the authorization servers that issue tokens for this server (at least one). */
  authorizationServers: readonly string[];
  /** Scopes this server understands, published as `scopes_supported` (keep it minimal). @default [] */
  scopesSupported?: readonly string[];
  /**
   * Scopes named in the `scope` parameter of 401 challenges: what a client should ask for first.
   * @default scopesSupported
   */
  challengeScopes?: readonly string[];
  /**
   * Verifies access tokens. Whatever it is, the audience check stays on: a token whose audience
   * does not name `resource` is refused.
   * @default new McpJwtVerifier({ issuer: authorizationServers, audience: resource })
   */
  verifier?: McpTokenVerifier;
  /** Human-readable name in the metadata document (`resource_name`). @default the server name */
  resourceName?: string;
  /** A page documenting this server for developers (`resource_documentation`). */
  resourceDocumentation?: string;
  /**
   * Put the raw access token on `ctx.auth.token`. Off by default: handlers should not hold
   * bearer tokens, and this one must never be passed on to another service.
   * @default false
   */
  exposeToken?: boolean;
}
