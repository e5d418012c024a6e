import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { McpException } from './mcp.exception.js';

/** `-32700` Parse error: the bytes are not JSON. @publicApi */
export class McpParseErrorException extends McpException {
  constructor(detail = 'The message is not valid JSON') {
    super(JsonRpcErrorCode.ParseError, 'Parse error', detail, undefined, { status: 400 });
  }
}

/**
 * `-32600` Invalid Request: JSON, but not a valid JSON-RPC request for this state. Over HTTP it
 * answers 400 (docs/decisions/0002-error-codes-and-http-statuses.md).
 * @publicApi
 */
export class McpInvalidRequestException extends McpException {
  constructor(detail: string, message = 'Invalid Request') {
    super(JsonRpcErrorCode.InvalidRequest, message, detail, undefined, { status: 400 });
  }
}

/** `-32601` Method not found. @publicApi */
export class McpMethodNotFoundException extends McpException {
  constructor(method: string) {
    super(JsonRpcErrorCode.MethodNotFound, 'Method not found', `Method '${method}' is not supported`);
  }
}

/**
 * `-32602` Invalid params. Throw it from a resource, prompt or tool handler when its input is
 * unusable, for example when the data behind a resource is missing; `detail` reaches the client.
 * @publicApi
 */
export class McpInvalidParamsException extends McpException {
  constructor(detail: string, data?: Record<string, unknown>) {
    super(JsonRpcErrorCode.InvalidParams, 'Invalid params', detail, data);
  }
}

/** `-32603` Internal error. The detail never carries the original error text. @publicApi */
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

/**
 * `-32603`: a handler asked to reach the client (`elicit`, `sample`, `listRoots`,
 * `reportProgress`) where the client cannot be reached: a runtime resource's read forwarded to
 * the instance that registered it runs there, and only the instance the client talks to holds
 * the channel. Thrown at once, by the call, so the handler can catch it and read without asking.
 * @publicApi
 */
export class McpClientUnreachableException extends McpException {
  constructor(what: string, uri: string) {
    super(
      JsonRpcErrorCode.InternalError,
      'Client unreachable',
      `${what} is not available while reading '${uri}': this runtime resource's handler runs on another instance (the one that registered it), which cannot reach the client`,
      { uri },
    );
  }
}

/**
 * `-32000` Too many subscriptions, with `data.limit`: the session is subscribed to
 * `maxSubscriptionsPerSession` URIs already. A server limit on what the session holds, like
 * `maxSessions`, not a fault of the params: the same `resources/subscribe` succeeds once the
 * session unsubscribes from another URI. Answered as a JSON-RPC error (HTTP 200), since retrying
 * later does not help.
 * @publicApi
 */
export class McpTooManySubscriptionsException extends McpException {
  constructor(limit: number) {
    super(
      JsonRpcErrorCode.ServerError,
      'Too many subscriptions',
      `This session is already subscribed to its limit of ${limit} resources; unsubscribe from one first`,
      { limit },
    );
  }
}
