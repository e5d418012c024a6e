export type { McpAuthOptions } from '../interfaces/mcp-auth-options.interface.js';
export type {
  McpTokenVerifier,
  McpTokenVerificationContext,
  McpVerifiedToken,
} from '../interfaces/mcp-token-verifier.interface.js';
export type { McpPrincipal } from '../model/mcp-principal.js';
export { McpInvalidTokenError, McpAuthServerUnavailableError } from './verifiers/verifier.errors.js';
export { RequireScopes } from './require-scopes.decorator.js';
export { McpJwtVerifier, type McpJwtVerifierOptions } from './verifiers/jwt.verifier.js';
export { McpIntrospectionVerifier, type McpIntrospectionVerifierOptions } from './verifiers/introspection.verifier.js';
