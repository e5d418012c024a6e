import type { IncomingHttpHeaders } from 'node:http';

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

/** Headers whose value is a credential or a session capability. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'mcp-session-id']);

/** Query parameters that carry a session id or a token. */
const SECRET_PARAMS =
  /([?&;](?:sessionId|session_id|access_token|id_token|refresh_token|token|code|client_secret)=)[^&#\s"'<>]*/gi;

const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // Authorization / Mcp-Session-Id / cookies in "Header: value" lines and in JSON-ish dumps.
  [
    /((?:proxy-)?authorization|mcp-session-id|cookie|set-cookie)(["']?\s*[:=]\s*["']?)(?:(bearer|basic|dpop)\s+)?[^\s"',;}]+/gi,
    `$1$2$3 ${REDACTED}`,
  ],
  // A bearer token anywhere else ("Bearer eyJ...").
  [/\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${REDACTED}`],
  // Session ids and tokens as JSON members or assignments (sessionId: "...", "access_token":"...").
  [
    /(["']?(?:sessionId|session_id|access_token|refresh_token|id_token|client_secret)["']?\s*[:=]\s*["']?)[^\s"',;}&]+/gi,
    `$1${REDACTED}`,
  ],
  [SECRET_PARAMS, `$1${REDACTED}`],
  // The password of a URL's user info (redis://user:password@host, as a client error may quote).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi, `$1${REDACTED}@`],
  // Any JWT (three base64url parts, the first two JSON objects).
  [/\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, REDACTED],
];

/**
 * Removes credentials and session capabilities from text that is about to be logged: the values
 * of `Authorization` and `Mcp-Session-Id` headers, bearer tokens, JWTs, session ids or tokens
 * in query strings (`?sessionId=`, `?access_token=`) and JSON members, and passwords in URLs
 * (`redis://:password@host`). Every log line of the
 * module that may carry request data or a foreign error's text goes through it.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A copy of request headers fit for a log line: credential and session headers redacted. */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const copy: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    copy[name] = SECRET_HEADERS.has(name.toLowerCase()) && value !== undefined ? REDACTED : value;
  }
  return copy;
}

/** A URL fit for a log line: session ids and tokens in its query redacted. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, `$1${REDACTED}`);
}
