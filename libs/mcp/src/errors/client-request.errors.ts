/** The client did not declare the capability a server→client request needs. @publicApi */
export class McpClientCapabilityError extends Error {
  /** The missing capability, dotted (`sampling.tools`). */
  constructor(readonly capability: string) {
    super(`The client did not declare the '${capability}' capability, so the server cannot ask it for that`);
    this.name = 'McpClientCapabilityError';
  }
}

/** The client did not answer a server→client request in time. @publicApi */
export class McpClientRequestTimeoutError extends Error {
  constructor(method: string, timeoutMs: number) {
    super(`The client did not answer ${method} within ${timeoutMs} ms`);
    this.name = 'McpClientRequestTimeoutError';
  }
}

/** The client answered a server→client request with an error. @publicApi */
export class McpClientRequestError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`The client refused ${method}: ${message} (${code})`);
    this.name = 'McpClientRequestError';
  }
}

/**
 * Nothing can carry a server→client request to this client: a stateless request, a client that
 * accepts only JSON and holds no GET stream, a connection that closed, or a runtime resource's
 * read forwarded to the instance that registered it (`uri`: only the instance the client talks
 * to holds the channel). Raised at once, by the call (`ctx.elicit`, `ctx.sample`,
 * `ctx.listRoots`, and `ctx.reportProgress` in a forwarded read), instead of waiting for a
 * timeout that could never end otherwise: catch it to go on without asking. Uncaught, a tool
 * answers it as an `isError` result with its message, and a forwarded read as `-32603` "Client
 * unreachable" with `data.uri`.
 * @publicApi
 */
export class McpClientUnreachableError extends Error {
  /**
   * @param method What could not reach the client (`elicitation/create`, `ctx.elicit`).
   * @param why Why not.
   * @param uri The resource whose forwarded read made the call, if that is why.
   */
  constructor(
    method: string,
    why: string,
    readonly uri?: string,
  ) {
    super(
      uri === undefined
        ? `Cannot send ${method} to the client: ${why}`
        : `${method} is not available while reading '${uri}': ${why}`,
    );
    this.name = 'McpClientUnreachableError';
  }
}
