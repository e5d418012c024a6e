import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { McpException } from './mcp.exception.js';

/** `-32700` Parse error: the bytes are not JSON. */
export class McpParseErrorException extends McpException {
  constructor(detail = 'The message is not valid JSON') {
    super(JsonRpcErrorCode.ParseError, 'Parse error', detail, undefined, { status: 400 });
  }
}

/**
 * `-32600` Invalid Request: JSON, but not a valid JSON-RPC request for this state. Over HTTP it
 * answers 400 (docs/decisions/0002-error-codes-and-http-statuses.md).
 */
export class McpInvalidRequestException extends McpException {
  constructor(detail: string, message = 'Invalid Request') {
    super(JsonRpcErrorCode.InvalidRequest, message, detail, undefined, { status: 400 });
  }
}

/**
 * `-32601` Method not found, for a method this endpoint does not serve (removed or unknown). The
 * legacy era answers it in-band (HTTP 200); the modern era rides it on a 404 (`http`). The
 * detail names at most 128 characters of the method: it is the client's own input.
 */
export class McpMethodNotFoundException extends McpException {
  constructor(method: string, http?: { status: number }) {
    super(
      JsonRpcErrorCode.MethodNotFound,
      'Method not found',
      `Method '${method.slice(0, 128)}' is not supported`,
      undefined,
      http,
    );
  }
}

/**
 * `-32602` Invalid params. Throw it from a resource, prompt or tool handler when its input is
 * unusable, for example when the data behind a resource is missing; `detail` reaches the client.
 * @publicApi
 */
export class McpInvalidParamsException extends McpException {
  /**
   * @param detail What is wrong with the input; it reaches the client.
   * @param data Extra members of the error's `data`.
   * @param http The HTTP status it rides on where it rejects a whole HTTP request (the modern
   *   era's `_meta` checks); unset, it answers in-band.
   */
  constructor(detail: string, data?: Record<string, unknown>, http?: { status: number }) {
    super(JsonRpcErrorCode.InvalidParams, 'Invalid params', detail, data, http);
  }
}

/** `-32603` Internal error. The detail never carries the original error text. */
export class McpInternalErrorException extends McpException {
  constructor(correlationId: string) {
    super(
      JsonRpcErrorCode.InternalError,
      'Internal error',
      `An internal error occurred (correlation id ${correlationId})`,
      { correlationId },
    );
  }
}

/** `-32002` Resource not found, with `data.uri`. @publicApi */
export class McpResourceNotFoundException extends McpException {
  constructor(uri: string, code: number = JsonRpcErrorCode.ResourceNotFound) {
    super(code, 'Resource not found', `Resource '${uri}' is not registered`, { uri });
  }
}
