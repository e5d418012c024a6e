/**
 * What each MCP parameter decorator injects.
 *
 * The numbers matter: Nest tells pipes the parameter's type from them (3 → `'body'`, 4 →
 * `'query'`, 5 → `'param'`, anything else → `'custom'`), and `ValidationPipe` skips `'custom'`.
 * So the arguments are 3, like `@Payload()` and GraphQL's `@Args()`, and everything else avoids
 * 3 to 5 so that pipes never transform a context value.
 * @publicApi
 */
export enum McpParamtype {
  /** The tool arguments, the prompt arguments, or `{ uri }` for a resource. */
  ARGS = 3,
  /** The whole `McpRequestContext`. */
  CONTEXT = 6,
  SESSION_ID = 7,
  PROTOCOL_VERSION = 8,
  TRANSPORT = 9,
  /** The raw transport request (the Express request over HTTP). */
  REQUEST = 10,
  /** The `AbortSignal` of the request. */
  SIGNAL = 11,
  /** The caller's `McpPrincipal` (`ctx.auth`), or one of its members. */
  AUTH = 12,
}
