// Percent-encoding as RFC 6570 section 1.6 wants it: UTF-8 first, then %XX per byte. The
// built-ins already encode whole code points as UTF-8 (unlike per-UTF-16-unit encoders, which
// mangle characters outside the BMP), so they are the base here.

const PCT_TRIPLET = /(%[0-9A-Fa-f]{2})/;
const SUB_DELIMS_KEPT_BY_ENCODE_URI_COMPONENT = /[!'()*]/g;

const hex = (char: string): string => `%${char.charCodeAt(0).toString(16).toUpperCase()}`;

function builtIn(encode: (text: string) => string, text: string): string {
  try {
    return encode(text);
  } catch {
    // URIError: a lone surrogate has no UTF-8 form, so no URI can carry it.
    throw new Error(`Cannot percent-encode '${text}': it is not well-formed Unicode`);
  }
}

/** Encodes all but the unreserved characters `A-Z a-z 0-9 - . _ ~` (the `U` set). */
export function encodeUnreserved(text: string): string {
  return builtIn(encodeURIComponent, text).replace(SUB_DELIMS_KEPT_BY_ENCODE_URI_COMPONENT, hex);
}

/**
 * Encodes all but unreserved and reserved characters, and keeps existing `%XX` triplets (the
 * `U+R` set of `{+var}`, `{#var}` and literals).
 */
export function encodeReserved(text: string): string {
  return text
    .split(PCT_TRIPLET)
    .map((piece, index) =>
      // Odd indexes are the captured triplets; `encodeURI` leaves every other reserved
      // character alone except the brackets, which RFC 3986 also reserves.
      index % 2 === 1 ? piece : builtIn(encodeURI, piece).replace(/%5B/g, '[').replace(/%5D/g, ']'),
    )
    .join('');
}

/** Decodes `%XX` sequences; `undefined` for a malformed sequence or one that is not UTF-8. */
export function decodeComponent(text: string): string | undefined {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
