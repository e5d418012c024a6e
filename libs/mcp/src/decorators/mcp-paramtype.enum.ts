/** What each MCP parameter decorator injects. @publicApi */
export enum McpParamtype {
  /** The tool arguments, the prompt arguments, or `{ uri }` for a resource. */
  ARGS = 0,
  /** The whole `McpRequestContext`. */
  CONTEXT = 1,
  SESSION_ID = 2,
  PROTOCOL_VERSION = 3,
  TRANSPORT = 4,
  /** The raw transport request (the Express request over HTTP). */
  REQUEST = 5,
  /** The `AbortSignal` of the request. */
  SIGNAL = 6,
}
