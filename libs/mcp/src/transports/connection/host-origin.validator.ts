import type { IncomingHttpHeaders } from 'node:http';

/** Which `Host` and `Origin` values the transport accepts (DNS-rebinding and cross-site protection). */
export interface HostOriginValidatorOptions {
  /**
   * Host names with an optional port: `example.com`, `example.com:8443`, `[::1]:3000`. An entry without a
   * port matches any port; an entry with a port matches only that exact port (the scheme is unknown here,
   * so no default port is assumed). `'*'` allows any Host, even a missing one.
   * Default: `localhost`, `127.0.0.1` and `[::1]` on any port. An empty list allows nothing.
   */
  allowedHosts?: readonly string[];
  /**
   * Full origins: `https://app.example.com`, `http://localhost:5173`. Compared exactly after lower-casing and
   * dropping default ports (80 for http, 443 for https). `'*'` allows any well-formed Origin, never `null`.
   * Default: `http(s)://localhost|127.0.0.1|[::1]` on any port. An empty list allows only requests without
   * an Origin (non-browser clients). Requests without an Origin header are always allowed.
   */
  allowedOrigins?: readonly string[];
}

/** Outcome of a Host/Origin check; `reason` is safe to log and to send back. */
export type HostOriginCheck = { ok: true } | { ok: false; reason: string };

/** Checks the `Host` and `Origin` request headers. Never throws. */
export type HostOriginValidator = (headers: IncomingHttpHeaders) => HostOriginCheck;

interface Authority {
  /** Lower case; IPv6 literals keep their brackets. */
  hostname: string;
  port?: number;
}

interface Origin extends Authority {
  scheme: string;
}

const WILDCARD = '*';
const LOCAL_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);
const LOCAL_SCHEMES: ReadonlySet<string> = new Set(['http', 'https']);
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };
// Above any real host (253) or origin; cuts work on hostile values early and keeps reasons short.
const MAX_VALUE_CHARS = 512;

// RFC 3986 reg-name / IPv4address: unreserved, sub-delims, pct-encoded. Checked before lower-casing, and
// without the `u` flag, so no non-ASCII character can case-fold into ASCII.
const REG_NAME = /^(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})+$/i;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/i;
const PORT = /^\d{1,5}$/;
const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\\\s]+)$/i;

const fail = (reason: string): HostOriginCheck => ({ ok: false, reason });
const OK: HostOriginCheck = { ok: true };

function parseAuthority(value: string): Authority | undefined {
  if (value.length === 0 || value.length > MAX_VALUE_CHARS) return undefined;
  let hostname: string;
  let rest: string;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0) return undefined;
    hostname = value.slice(0, close + 1);
    rest = value.slice(close + 1);
    if (!IPV6_LITERAL.test(hostname)) return undefined;
  } else {
    const colon = value.indexOf(':');
    hostname = colon < 0 ? value : value.slice(0, colon);
    rest = colon < 0 ? '' : value.slice(colon);
    if (!REG_NAME.test(hostname)) return undefined;
  }
  hostname = hostname.toLowerCase();
  if (rest === '') return { hostname };
  const port = rest.slice(1);
  if (!rest.startsWith(':') || !PORT.test(port) || Number(port) > 65535) return undefined;
  return { hostname, port: Number(port) };
}

function parseOrigin(value: string): Origin | undefined {
  if (value.length > MAX_VALUE_CHARS) return undefined;
  const match = ORIGIN.exec(value);
  if (!match) return undefined;
  const authority = parseAuthority(match[2]);
  if (!authority) return undefined;
  const scheme = match[1].toLowerCase();
  const port = authority.port === DEFAULT_PORTS[scheme] ? undefined : authority.port;
  return { scheme, hostname: authority.hostname, port };
}

const formatAuthority = ({ hostname, port }: Authority): string =>
  port === undefined ? hostname : `${hostname}:${port}`;
const formatOrigin = (origin: Origin): string => `${origin.scheme}://${formatAuthority(origin)}`;

function compileHosts(entries: readonly string[] | undefined): Authority[] | typeof WILDCARD {
  if (entries === undefined) return [...LOCAL_HOSTNAMES].map((hostname) => ({ hostname }));
  if (entries.includes(WILDCARD)) return WILDCARD;
  return entries.map((entry) => {
    const parsed = typeof entry === 'string' ? parseAuthority(entry.trim()) : undefined;
    if (!parsed) {
      throw new TypeError(
        `Invalid allowedHosts entry ${JSON.stringify(entry)}: expected a host name with an optional port, such as "example.com:8443"`,
      );
    }
    return parsed;
  });
}

function compileOrigins(entries: readonly string[] | undefined): Set<string> | typeof WILDCARD | undefined {
  if (entries === undefined) return undefined;
  if (entries.includes(WILDCARD)) return WILDCARD;
  return new Set(
    entries.map((entry) => {
      // A trailing slash is a common slip when copying an origin from a URL.
      const parsed = typeof entry === 'string' ? parseOrigin(entry.trim().replace(/\/$/, '')) : undefined;
      if (!parsed) {
        throw new TypeError(
          `Invalid allowedOrigins entry ${JSON.stringify(entry)}: expected an origin such as "https://app.example.com"`,
        );
      }
      return formatOrigin(parsed);
    }),
  );
}

/**
 * Builds the Host/Origin check of the Streamable HTTP transport (MCP requires Origin validation against
 * DNS rebinding). The defaults accept only local clients. The Host header is checked as received: behind a
 * reverse proxy, keep the original Host or list the public one.
 *
 * @throws TypeError at creation for a malformed configuration entry, so a typo cannot silently block or allow.
 */
export function createHostOriginValidator(options: HostOriginValidatorOptions = {}): HostOriginValidator {
  const hosts = compileHosts(options.allowedHosts);
  const origins = compileOrigins(options.allowedOrigins);

  // The last Host value allowed: a server sees the same one on request after request, and the
  // verdict depends on nothing else, so it is not parsed again.
  let lastAllowedHost: string | undefined;
  const checkHost = (host: unknown): HostOriginCheck => {
    if (hosts === WILDCARD) return OK;
    if (host === lastAllowedHost && host !== undefined) return OK;
    if (Array.isArray(host)) return fail('Multiple Host headers');
    if (typeof host !== 'string' || host === '') return fail('Missing Host header');
    const parsed = parseAuthority(host);
    if (!parsed) return fail('Malformed Host header');
    const allowed = hosts.some(
      (rule) => rule.hostname === parsed.hostname && (rule.port === undefined || rule.port === parsed.port),
    );
    if (!allowed) return fail(`Host "${formatAuthority(parsed)}" is not allowed`);
    lastAllowedHost = host;
    return OK;
  };

  const checkOrigin = (origin: unknown): HostOriginCheck => {
    if (origin === undefined) return OK;
    if (Array.isArray(origin)) return fail('Multiple Origin headers');
    if (typeof origin !== 'string') return fail('Malformed Origin header');
    // Sandboxed frames, file: pages and some redirects send "null"; it cannot be attributed to anyone.
    if (origin === 'null') return fail('Origin "null" is not allowed');
    const parsed = parseOrigin(origin);
    if (!parsed) return fail('Malformed Origin header');
    const normalised = formatOrigin(parsed);
    let allowed: boolean;
    if (origins === WILDCARD) allowed = true;
    else if (origins === undefined) allowed = LOCAL_SCHEMES.has(parsed.scheme) && LOCAL_HOSTNAMES.has(parsed.hostname);
    else allowed = origins.has(normalised);
    return allowed ? OK : fail(`Origin "${normalised}" is not allowed`);
  };

  return (headers) => {
    try {
      const host = (headers as Record<string, unknown> | undefined)?.host;
      const origin = (headers as Record<string, unknown> | undefined)?.origin;
      // Most requests: the Host allowed last time (or any Host) and no Origin (not a browser).
      if (origin === undefined && (hosts === WILDCARD || (host === lastAllowedHost && host !== undefined))) return OK;
      const checked = checkHost(host);
      return checked.ok ? checkOrigin(origin) : checked;
    } catch {
      // Unreachable for real header objects; a hostile getter must not take the request handler down.
      return fail('Unreadable Host or Origin header');
    }
  };
}
