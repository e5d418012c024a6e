/**
 * A lone surrogate written as a JSON escape (docs/security.md, hostile input). `JSON.parse` accepts it, so
 * the server takes it as ordinary text: the echo tool answers it back, and `JSON.stringify`
 * writes it as the same escape, so the answer stays ASCII (a lone surrogate has no UTF-8 form).
 * Every transport answers alike.
 */

/** `tools/call echo` with the text `a\ud800b`, as raw JSON with the escape in it. */
export const loneSurrogateEcho = (id: number): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\\ud800b"}}}`;

/** The one answer to {@link loneSurrogateEcho}, parsed. */
export const loneSurrogateAnswer = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: {
    content: [{ type: 'text', text: '{"text":"a\\ud800b"}' }],
    structuredContent: { text: 'a\ud800b' },
  },
});

/** How the answer carries the text on the wire: the six ASCII characters of the escape. */
export const LONE_SURROGATE_ON_THE_WIRE = '"structuredContent":{"text":"a\\ud800b"}';
