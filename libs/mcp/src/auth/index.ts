export type * from '../interfaces/mcp-auth-options.interface.js';
export type * from '../interfaces/mcp-token-verifier.interface.js';
export {
  type McpPrincipal,
  type McpPrincipalBinding,
  principalBinding,
  principalDigest,
  isSamePrincipal,
} from '../model/mcp-principal.js';
export { McpInvalidTokenError, McpAuthServerUnavailableError } from './mcp-auth.errors.js';
export * from './mcp-auth.exceptions.js';
export { RequireScopes, MCP_REQUIRED_SCOPES_METADATA } from './require-scopes.decorator.js';
export { McpJwtVerifier, DEFAULT_JWT_ALGORITHMS, type McpJwtVerifierOptions } from './verifiers/jwt.verifier.js';
export { McpIntrospectionVerifier, type McpIntrospectionVerifierOptions } from './verifiers/introspection.verifier.js';
export { PROTECTED_RESOURCE_WELL_KNOWN, resourceMetadataUrl } from './resource-metadata.js';
