import type { McpAuthOptions } from '../interfaces/mcp-auth-options.interface.js';
import { isScopeToken } from './scopes.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `https:`, or `http:` on a loopback host (local development and tests): OAuth 2.1 §1.5 asks for
 * TLS on everything else.
 */
function urlProblem(value: unknown, what: string): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value))
    return `${what} must be an absolute URL, got ${JSON.stringify(value)}`;
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    return `${what} must be an https: URL (http: only on localhost), got '${value}'`;
  }
  if (url.hash) return `${what} must not have a fragment, got '${value}'`;
  return undefined;
}

/** The problems of the `auth` option, as messages naming it; empty when it can work. */
export function authOptionProblems(auth: McpAuthOptions | undefined): string[] {
  if (auth === undefined) return [];
  if (typeof auth !== 'object' || auth === null) return ["McpModule option 'auth' must be an object"];
  const problems: string[] = [];
  const resource = urlProblem(auth.resource, "McpModule option 'auth.resource'");
  if (resource) problems.push(resource);
  else if (new URL(auth.resource).search) {
    problems.push(`McpModule option 'auth.resource' must not have a query, got '${auth.resource}'`);
  }
  if (!Array.isArray(auth.authorizationServers) || auth.authorizationServers.length === 0) {
    problems.push("McpModule option 'auth.authorizationServers' must name at least one authorization server");
  } else {
    for (const server of auth.authorizationServers) {
      const problem = urlProblem(server, "Each of 'auth.authorizationServers'");
      if (problem) problems.push(problem);
    }
  }
  for (const name of ['scopesSupported', 'challengeScopes'] as const) {
    const scopes = auth[name];
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every(isScopeToken))) {
      problems.push(`McpModule option 'auth.${name}' must be an array of scopes (strings without spaces)`);
    }
  }
  if (auth.verifier !== undefined && typeof auth.verifier?.verify !== 'function') {
    problems.push("McpModule option 'auth.verifier' must be a token verifier (an object with verify())");
  }
  return problems;
}
