import { IntrinsicException } from '@nestjs/common';
import type { JsonRpcErrorObject } from '../protocol/json-rpc.js';

/**
 * A protocol error with its JSON-RPC code. Throw it (or a subclass) from any MCP handler,
 * guard, pipe or filter to answer with exactly that error:
 * `{ code, message, data: { detail, ...data } }` (spec section 7).
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
  constructor(
    readonly code: number,
    message: string,
    readonly detail?: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
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
