/** A parsed media type: `type/subtype` in lower case, parameter names in lower case, values unquoted. */
export interface MediaType {
  type: string;
  params: Record<string, string>;
}

/** Which response formats the client's `Accept` header allows. */
export interface AcceptNegotiation {
  json: boolean;
  sse: boolean;
  /** `text/html` is named explicitly: a browser, not an MCP client. */
  html?: boolean;
}

const JSON_MEDIA_TYPE = 'application/json';
const SSE_MEDIA_TYPE = 'text/event-stream';

// RFC 9110 section 5.6.2 token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 9110 section 12.4.2 qvalue.
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Splits on `separator`, ignoring separators inside quoted strings (backslash escapes honoured). */
function splitOutsideQuotes(input: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
    } else if (char === separator) {
      parts.push(input.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(input.slice(start));
  return parts;
}

/** Returns the parameter value, or undefined when it is neither a token nor a well-formed quoted string. */
function parseParamValue(raw: string): string | undefined {
  if (TOKEN.test(raw)) return raw;
  if (raw.length < 2 || !raw.startsWith('"') || !raw.endsWith('"')) return undefined;
  let value = '';
  for (let i = 1; i < raw.length - 1; i++) {
    let char = raw[i];
    if (char === '"') return undefined;
    if (char === '\\') {
      i++;
      // A backslash escaping the closing quote leaves the string unterminated.
      if (i >= raw.length - 1) return undefined;
      char = raw[i];
    }
    value += char;
  }
  return value;
}

/** Parses one `type/subtype *( ; name=value )` element; malformed parameters are skipped. */
function parseElement(element: string): MediaType | undefined {
  const [head, ...rawParams] = splitOutsideQuotes(element, ';');
  const slash = head.indexOf('/');
  if (slash < 0) return undefined;
  const type = head.slice(0, slash).trim();
  const subtype = head.slice(slash + 1).trim();
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;

  // Null prototype: parameter names such as "__proto__" come from the client.
  const params = Object.create(null) as Record<string, string>;
  for (const rawParam of rawParams) {
    const eq = rawParam.indexOf('=');
    if (eq < 0) continue;
    const name = rawParam.slice(0, eq).trim().toLowerCase();
    const value = parseParamValue(rawParam.slice(eq + 1).trim());
    if (!TOKEN.test(name) || value === undefined || Object.hasOwn(params, name)) continue;
    params[name] = value;
  }
  return { type: `${type}/${subtype}`.toLowerCase(), params };
}

/**
 * Parses a `Content-Type`-style header (RFC 9110 section 8.3.1).
 * Returns undefined for a missing, empty or malformed value, including a list (`a/b, c/d`).
 * Malformed parameters are ignored; on duplicate parameter names the first wins.
 */
export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (typeof header !== 'string') return undefined;
  const elements = splitOutsideQuotes(header, ',');
  return elements.length === 1 ? parseElement(header) : undefined;
}

/**
 * True when the header names `application/json`, with any parameters.
 *
 * Only `application/json` itself counts: `+json` suffix types (`application/merge-patch+json`, ...) carry
 * other semantics, and MCP requires clients to post `application/json`. A `charset` parameter is not
 * checked here; the body is always decoded as strict UTF-8, which is the only encoding JSON allows.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  // A known value answers from the cache without a call (`memoized` fills it).
  return (
    contentTypeVerdicts.get(header) ??
    memoized(contentTypeVerdicts, header, () => parseMediaType(header)?.type === JSON_MEDIA_TYPE)
  );
}

/**
 * Clients send the same few header values on every request, so verdicts are kept per exact
 * value; the caches are bounded, and cleared whole when full, so hostile variety costs nothing
 * but a miss.
 */
const CACHE_LIMIT = 256;
const contentTypeVerdicts = new Map<string, boolean>();
const acceptVerdicts = new Map<string, AcceptNegotiation>();

function memoized<T>(cache: Map<string, T>, key: string, compute: () => T): T {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const value = compute();
  if (cache.size >= CACHE_LIMIT) cache.clear();
  if (key.length <= 512) cache.set(key, value);
  return value;
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseMediaRange(element: string): MediaRange | undefined {
  const parsed = parseElement(element);
  if (!parsed) return undefined;
  const [type, subtype] = parsed.type.split('/');
  if (type === '*' && subtype !== '*') return undefined;
  const rawQ = parsed.params.q;
  if (rawQ !== undefined && !QVALUE.test(rawQ)) return undefined;
  return { type, subtype, q: rawQ === undefined ? 1 : Number(rawQ) };
}

/**
 * The weight the client gives `type/subtype`, or 0 when it is not acceptable.
 * The most specific matching range decides (exact, then `type/*`, then `*\/*`); among equally specific
 * ranges the highest weight wins. Parameters other than `q` are ignored for matching.
 */
function qualityOf(ranges: MediaRange[], type: string, subtype: string): number {
  let bestSpecificity = -1;
  let bestQ = 0;
  for (const range of ranges) {
    let specificity: number;
    if (range.type === type && range.subtype === subtype) specificity = 2;
    else if (range.type === type && range.subtype === '*') specificity = 1;
    else if (range.type === '*') specificity = 0;
    else continue;
    if (specificity > bestSpecificity) {
      bestSpecificity = specificity;
      bestQ = range.q;
    } else if (specificity === bestSpecificity) {
      bestQ = Math.max(bestQ, range.q);
    }
  }
  return bestQ;
}

/**
 * Parses an `Accept` header (RFC 9110 section 12.5.1) and reports whether JSON and SSE responses are acceptable.
 *
 * An absent or blank header accepts everything. `q=0` excludes a type, and a more specific range overrides a
 * wildcard (`*\/*, text/event-stream;q=0` excludes SSE). Malformed elements, including ones with an invalid
 * `q`, are ignored; if nothing valid remains, nothing is acceptable.
 */
export function negotiateAccept(header: string | undefined): AcceptNegotiation {
  if (typeof header !== 'string') return { json: true, sse: true };
  return acceptVerdicts.get(header) ?? memoized(acceptVerdicts, header, () => Object.freeze(parseAccept(header)));
}

function parseAccept(header: string): AcceptNegotiation {
  if (header.trim() === '') return { json: true, sse: true };
  const ranges: MediaRange[] = [];
  for (const element of splitOutsideQuotes(header, ',')) {
    const range = parseMediaRange(element);
    if (range) ranges.push(range);
  }
  const [jsonType, jsonSubtype] = JSON_MEDIA_TYPE.split('/');
  const [sseType, sseSubtype] = SSE_MEDIA_TYPE.split('/');
  const verdict: AcceptNegotiation = {
    json: qualityOf(ranges, jsonType, jsonSubtype) > 0,
    sse: qualityOf(ranges, sseType, sseSubtype) > 0,
  };
  if (ranges.some((range) => range.type === 'text' && range.subtype === 'html' && range.q > 0)) verdict.html = true;
  return verdict;
}
