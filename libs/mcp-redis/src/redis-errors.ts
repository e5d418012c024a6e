import { McpBackendUnavailableError } from '@nest-mcp/server/backend';

/**
 * Replies with which Redis says it cannot serve now (loading, failing over, busy script): the
 * same outage as a refused connection, to the client.
 */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|NOREPLICAS)\b/;

/**
 * What a failed Redis call means to the core: an outage (no connection, a timeout, a server that
 * is loading or failing over) is `McpBackendUnavailableError`, answered 503 with Retry-After; any
 * other reply error (a bug: a wrong type, a script error) stays what it is, a 500.
 *
 * Application code that keeps its own data in Redis maps its failures with it too, so a tool
 * whose store is down answers like the backend does (503, nothing of Redis in the body).
 *
 * @example
 * ```ts
 * try {
 *   return await this.redis.hget(key, id);
 * } catch (error) {
 *   throw toBackendError(error);
 * }
 * ```
 * @publicApi
 */
export function toBackendError(error: unknown): Error {
  if (error instanceof McpBackendUnavailableError) return error;
  const reply = error instanceof Error && error.name === 'ReplyError';
  if (reply && !TRANSIENT_REPLY.test(error.message)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new McpBackendUnavailableError(`Redis is unavailable: ${message}`, { cause: error });
}

/** Runs a Redis call and maps its failure with `toBackendError`. */
export async function guarded<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw toBackendError(error);
  }
}

/** A one-line description of a failure, for logs. */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));
