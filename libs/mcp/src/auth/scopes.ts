import type { McpPrincipal } from '../model/mcp-principal.js';

/** The scopes of `required` that `granted` lacks, in the order required. */
export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  const have = new Set(granted);
  return required.filter((scope) => !have.has(scope));
}

/**
 * True when a caller may use an entry that needs `required` scopes. A request without a principal
 * (auth off, or stdio, which is local) is not scope-checked.
 */
export function permits(principal: McpPrincipal | undefined, required: readonly string[] | undefined): boolean {
  return !principal || !required || required.length === 0 || missingScopes(principal.scopes, required).length === 0;
}

/** A scope token (RFC 6749 §3.3): printable ASCII without space, double quote or backslash. */
export const isScopeToken = (scope: unknown): scope is string =>
  typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope);
