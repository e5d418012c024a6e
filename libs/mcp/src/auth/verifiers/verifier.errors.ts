/**
 * Thrown by a token verifier for a token it refuses: expired, not yet valid, badly signed, for
 * another audience or issuer, of the wrong type, malformed. Answered 401 with
 * `WWW-Authenticate: Bearer error="invalid_token"`. The description reaches the client: never
 * put the token (or anything secret) in it.
 * @publicApi
 */
export class McpInvalidTokenError extends Error {
  constructor(description: string, options?: { cause?: unknown }) {
    super(description, options);
    this.name = 'McpInvalidTokenError';
  }
}

/**
 * Thrown by a token verifier that cannot reach the authorization server (its metadata, keys or
 * introspection endpoint) to decide. Answered 503 with `Retry-After`, never 401: the token may
 * well be valid, and a 401 would send the client off to get a new one in a loop.
 * @publicApi
 */
export class McpAuthServerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpAuthServerUnavailableError';
  }
}
