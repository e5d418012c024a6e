/**
 * The `contents` of a read: a handler returns the whole `{ contents }`, or one value — a string
 * (text), bytes (base64 `blob`) or anything else (JSON text).
 */
export function toContents(uri: string, mimeType: string | undefined, value: unknown): unknown[] {
  if (typeof value === 'object' && value !== null && Array.isArray((value as { contents?: unknown }).contents)) {
    return (value as { contents: unknown[] }).contents;
  }
  if (typeof value === 'string') return [{ uri, mimeType: mimeType ?? 'text/plain', text: value }];
  if (value instanceof Uint8Array) {
    return [{ uri, mimeType: mimeType ?? 'application/octet-stream', blob: Buffer.from(value).toString('base64') }];
  }
  return [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value ?? null) }];
}
