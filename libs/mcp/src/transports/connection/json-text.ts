/** Result of {@link decodeJsonText}. */
export type DecodedJsonText = { ok: true; value: unknown } | { ok: false; detail: string };

const JSON_WHITESPACE_ONLY = /^[ \t\n\r]*$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const MAX_DETAIL_CHARS = 200;

/**
 * Decodes one complete message (an HTTP body, a stdio line) as strict UTF-8 JSON (one leading BOM
 * is tolerated). Never throws. Decode the concatenated bytes, never chunk by chunk, or multi-byte
 * characters split across chunks break.
 */
export function decodeJsonText(buf: Buffer): DecodedJsonText {
  let text: string;
  try {
    text = UTF8.decode(buf);
  } catch {
    return { ok: false, detail: 'Request body is not valid UTF-8' };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (JSON_WHITESPACE_ONLY.test(text)) return { ok: false, detail: 'Request body is empty' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const clipped = reason.length > MAX_DETAIL_CHARS ? `${reason.slice(0, MAX_DETAIL_CHARS)}…` : reason;
    return { ok: false, detail: `Request body is not valid JSON: ${clipped}` };
  }
}
