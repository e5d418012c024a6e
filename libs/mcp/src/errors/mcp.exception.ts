import { IntrinsicException } from '@nestjs/common';
import type { JsonRpcErrorObject } from '../model/json-rpc.js';

/**
 * A protocol error with its JSON-RPC code. Throw it (or a subclass) from any MCP handler,
 * guard, pipe or filter to answer with exactly that error:
 * `{ code, message, data: { detail, ...data } }` (docs/errors.md).
 *
 * It extends `IntrinsicException` so that Nest's fallback exception filter does not log it as
 * an unexpected error.
 * @publicApi
 */
export class McpException extends IntrinsicException {
  /**
   * @param code JSON-RPC error code.
   * @param message Short error message (the JSON-RPC `message`).
   * @param detail Human-readable explanation, sent as `data.detail`.
   * @param data Extra members of `data` (for example `{ uri }`).
   */
  /**
   * The HTTP status this error rides on when it rejects a whole HTTP request (transport-level
   * errors: 400, 403, 404, 405, 406, 413, 415, 503). Request-level errors leave it unset: their
   * JSON-RPC answer rides on 200 (docs/decisions/0002-error-codes-and-http-statuses.md).
   */
  readonly httpStatus?: number;
  /** Extra HTTP headers of that rejection (`Allow`, `Retry-After`, ...). */
  readonly httpHeaders?: Readonly<Record<string, string>>;

  constructor(
    readonly code: number,
    message: string,
    readonly detail?: string,
    readonly data?: Record<string, unknown>,
    http?: { status: number; headers?: Record<string, string> },
  ) {
    super(message);
    this.name = new.target.name;
    if (http) {
      this.httpStatus = http.status;
      if (http.headers) this.httpHeaders = http.headers;
    }
  }

  /** The JSON-RPC `error` object for this exception. */
  toJsonRpcError(): JsonRpcErrorObject {
    const data: Record<string, unknown> = { ...this.data };
    if (this.detail !== undefined) data.detail = this.detail;
    return Object.keys(data).length > 0
      ? { code: this.code, message: this.message, data }
      : { code: this.code, message: this.message };
  }
}
