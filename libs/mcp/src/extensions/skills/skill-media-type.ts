/** The media type of a skill file by its extension; SKILL.md and other markdown are `text/markdown`. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'application/x-sh',
  sql: 'application/sql',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** The MIME type of a directory resource (the skills extension's `resources/directory/read`). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/**
 * How a file is served: its MIME type, and its text when its bytes are UTF-8 (served as `text`,
 * else as a base64 `blob`). The text keeps a byte order mark, so that a host that encodes it again
 * gets exactly the bytes the digest covers.
 */
export function skillFileContent(fileName: string, bytes: Uint8Array): { mimeType: string; text?: string } {
  const dot = fileName.lastIndexOf('.');
  const known = dot > 0 ? BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()] : undefined;
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  const binary = known !== undefined && /^(image\/(?!svg)|application\/(pdf|zip))/.test(known);
  if (binary) return { mimeType: known };
  return { mimeType: known ?? (text !== undefined ? 'text/plain' : 'application/octet-stream'), text };
}
