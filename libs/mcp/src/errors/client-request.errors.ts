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
 * accepts only JSON and holds no GET stream, or a connection that closed. Raised at once, instead
 * of waiting for a timeout that could never end otherwise. @publicApi
 */
export class McpClientUnreachableError extends Error {
  constructor(method: string, why: string) {
    super(`Cannot send ${method} to the client: ${why}`);
    this.name = 'McpClientUnreachableError';
  }
}
