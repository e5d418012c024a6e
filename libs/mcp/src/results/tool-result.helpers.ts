/** A content block of a tool result or prompt message. @publicApi */
export type McpContentBlock = { type: string; [key: string]: unknown };

/** A full `tools/call` result. Returned from a tool as is, it passes through untouched. @publicApi */
export interface McpToolResult {
  content: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** True for a value shaped like a full tool result (`content` is an array of typed blocks). */
export function isToolResult(value: unknown): value is McpToolResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const content = (value as { content?: unknown }).content;
  return (
    Array.isArray(content) &&
    content.every((block) => typeof block === 'object' && block !== null && typeof block.type === 'string')
  );
}

/** One text block. @publicApi */
export const textContent = (text: string): McpContentBlock => ({ type: 'text', text });

/** A result of one text block. @publicApi */
export const toolText = (text: string): McpToolResult => ({ content: [textContent(text)] });

/** A failed tool call the model should see (`isError: true`). @publicApi */
export const toolError = (text: string): McpToolResult => ({ content: [textContent(text)], isError: true });

/** Structured content plus its JSON text (the MCP "SHOULD" for backwards compatibility). @publicApi */
export const toolStructured = (structured: Record<string, unknown>, text?: string): McpToolResult => ({
  content: [textContent(text ?? JSON.stringify(structured))],
  structuredContent: structured,
});

/** An image block; `data` is base64 (a Buffer is encoded for you). @publicApi */
export const imageContent = (data: string | Uint8Array, mimeType: string): McpContentBlock => ({
  type: 'image',
  data: typeof data === 'string' ? data : Buffer.from(data).toString('base64'),
  mimeType,
});

/** An audio block; `data` is base64 (a Buffer is encoded for you). @publicApi */
export const audioContent = (data: string | Uint8Array, mimeType: string): McpContentBlock => ({
  type: 'audio',
  data: typeof data === 'string' ? data : Buffer.from(data).toString('base64'),
  mimeType,
});

/** A link to a resource the client may read later (`resource_link`, 2025-06-18+). @publicApi */
export const resourceLink = (
  uri: string,
  name: string,
  extra: { title?: string; description?: string; mimeType?: string; [key: string]: unknown } = {},
): McpContentBlock => ({ type: 'resource_link', uri, name, ...extra });

/** An embedded binary resource block (base64 `blob`). @publicApi */
export const embeddedBlobResource = (
  uri: string,
  data: string | Uint8Array,
  mimeType = 'application/octet-stream',
): McpContentBlock => ({
  type: 'resource',
  resource: { uri, mimeType, blob: typeof data === 'string' ? data : Buffer.from(data).toString('base64') },
});

/** An embedded text resource block. @publicApi */
export const embeddedTextResource = (uri: string, text: string, mimeType = 'text/plain'): McpContentBlock => ({
  type: 'resource',
  resource: { uri, mimeType, text },
});
