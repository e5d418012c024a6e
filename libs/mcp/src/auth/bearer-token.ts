import type { IncomingHttpHeaders } from 'node:http';

/** Longest access token looked at; longer ones are refused before any parsing. */
export const MAX_TOKEN_LENGTH = 8 * 1024;

/** RFC 6750 §2.1 `b64token`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Where RFC 6750 §2.3 would put a token in the URI; such tokens are refused, never used. */
const QUERY_TOKEN_PARAMS = ['access_token'];

/** What the request carries in the way of a bearer token. */
export type BearerTokenLookup =
  | { readonly kind: 'token'; readonly token: string }
  /** No `Authorization` header, or one with another scheme (`Basic ...`). */
  | { readonly kind: 'missing' }
  /** A token in the URI query only: refused (MCP: tokens MUST NOT be in the URI). */
  | { readonly kind: 'query' }
  /** A malformed `Authorization: Bearer` header, or a token both in the header and the URI. */
  | { readonly kind: 'malformed'; readonly detail: string }
  /** Longer than `MAX_TOKEN_LENGTH`. */
  | { readonly kind: 'oversized' };

/**
 * Finds the bearer token of a request: only in the `Authorization` header (RFC 6750 §2.1).
 * A token in the query string (`?access_token=`) is never used: alone it leaves the request
 * unauthenticated, next to a header it makes the request malformed (RFC 6750 §3.1: "more than one
 * method").
 */
export function findBearerToken(request: { headers: IncomingHttpHeaders; url?: string }): BearerTokenLookup {
  const inQuery = hasQueryToken(request.url);
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !/^bearer(\s|$)/i.test(header)) {
    return inQuery ? { kind: 'query' } : { kind: 'missing' };
  }
  if (inQuery)
    return { kind: 'malformed', detail: 'Send the access token in the Authorization header only, not also in the URI' };
  const token = header.slice('bearer'.length).trim();
  if (token.length > MAX_TOKEN_LENGTH) return { kind: 'oversized' };
  if (!B64TOKEN.test(token)) {
    return { kind: 'malformed', detail: 'The Authorization header must be "Bearer" followed by one access token' };
  }
  return { kind: 'token', token };
}

function hasQueryToken(url: string | undefined): boolean {
  const query = url?.indexOf('?') ?? -1;
  if (query < 0) return false;
  const params = new URLSearchParams(url!.slice(query + 1));
  return QUERY_TOKEN_PARAMS.some((name) => params.has(name));
}
