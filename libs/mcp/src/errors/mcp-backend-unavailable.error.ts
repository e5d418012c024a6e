import { IntrinsicException } from '@nestjs/common';

/**
 * Thrown by a backend whose storage cannot be reached (a Redis outage, a timeout). Every
 * transport answers it with HTTP 503 and `Retry-After` (JSON-RPC `-32000` "Service
 * unavailable"), never with a 404: the session may well exist.
 *
 * Application code throws it too, to say that a store of its own cannot be reached: a tool,
 * resource or prompt handler that throws it gets the same 503 (never an `isError` tool result).
 * Its message is logged once, at warn, with secrets redacted (an `IntrinsicException`, so Nest's
 * own exception filter does not log it again), and never sent to the client.
 *
 * @example
 * ```ts
 * try {
 *   return await this.db.query(sql);
 * } catch (error) {
 *   throw new McpBackendUnavailableError(`notes database: ${String(error)}`, { cause: error });
 * }
 * ```
 * @publicApi
 */
export class McpBackendUnavailableError extends IntrinsicException {
  constructor(message = 'The MCP backend is unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpBackendUnavailableError';
  }
}
