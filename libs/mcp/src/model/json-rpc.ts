import { isObject } from './is-object.js';

/** A JSON-RPC request id. MCP forbids `null`; numbers must be safe integers. */
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

export interface JsonRpcSuccessResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** JSON-RPC 2.0 and MCP error codes used by this library. */
export const enum JsonRpcErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  /**
   * Implementation-defined server error: session required (docs/errors.md) and every
   * transport-level rejection, each with its own message (errors/mcp-transport.exceptions.ts).
   */
  ServerError = -32000,
  /** Implementation-defined: the session id is unknown or expired (as the official SDK answers). */
  SessionNotFound = -32001,
  /** Implementation-defined: a guard denied access. */
  Forbidden = -32003,
  /** Implementation-defined: rate limited. */
  TooManyRequests = -32004,
  /** Implementation-defined: a guard rejected the caller as unauthenticated. */
  Unauthorized = -32005,
  /** MCP (2025 era): resource not found. */
  ResourceNotFound = -32002,
  /** MCP 2026-07-28: HTTP headers disagree with the body, or a required one is missing. */
  HeaderMismatch = -32020,
  /** MCP 2026-07-28: the request needs a client capability that was not declared. */
  MissingRequiredClientCapability = -32021,
  /** MCP 2026-07-28: the requested protocol version is not supported. */
  UnsupportedProtocolVersion = -32022,
}

/** The shape of one inbound message after framing checks. */
export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: JsonRpcId | null; detail: string };

export const isValidId = (id: unknown): id is JsonRpcId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

/**
 * Checks one parsed JSON value against JSON-RPC 2.0 framing, with MCP's stricter id rule.
 * Never throws; anything malformed comes back as `invalid` with a reason.
 */
/**
 * The longest `method` a message may name. MCP's longest method name is a few dozen characters;
 * anything longer is refused as an invalid request before it reaches a log line, a span or a
 * method lookup.
 */
export const MAX_METHOD_LENGTH = 256;

export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isObject(value)) {
    return { kind: 'invalid', id: null, detail: 'A JSON-RPC message must be an object' };
  }
  const hasId = Object.hasOwn(value, 'id');
  const readableId = hasId && isValidId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') {
    return { kind: 'invalid', id: readableId, detail: 'The "jsonrpc" member must be exactly "2.0"' };
  }
  const hasMethod = Object.hasOwn(value, 'method');
  // An error response may carry `id: null` (or no id) when the peer could not read ours;
  // it is still a response, and a response is never answered.
  // `readableId` is null exactly when the id is absent or not a valid one (a valid id is never null).
  if (!hasMethod && isObject(value.error) && (!hasId || value.id === null || readableId !== null)) {
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  if (hasId && readableId === null) return { kind: 'invalid', id: null, detail: invalidIdDetail(value.id) };
  if (hasMethod) {
    if (typeof value.method !== 'string') {
      return { kind: 'invalid', id: readableId, detail: 'The "method" member must be a string' };
    }
    if (value.method.length > MAX_METHOD_LENGTH) {
      return {
        kind: 'invalid',
        id: readableId,
        detail: `The "method" member is longer than ${MAX_METHOD_LENGTH} characters: no MCP method is`,
      };
    }
    return hasId
      ? { kind: 'request', message: value as unknown as JsonRpcRequest }
      : { kind: 'notification', message: value as unknown as JsonRpcNotification };
  }
  if (hasId && Object.hasOwn(value, 'result')) {
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  return { kind: 'invalid', id: readableId, detail: 'A JSON-RPC message needs a "method", or a "result" or "error"' };
}

/** Why an id is refused, in the client's terms. */
function invalidIdDetail(id: unknown): string {
  if (id === null) return 'The "id" member must be a string or an integer; null is not allowed';
  if (typeof id === 'number') {
    if (!Number.isFinite(id)) return 'The "id" member must be a finite integer';
    if (!Number.isInteger(id)) return 'The "id" member must be an integer, not a fraction';
    return 'The "id" member is outside the safe integer range (±(2^53-1)) and cannot be echoed exactly; send it as a string';
  }
  return `The "id" member must be a string or an integer, not ${Array.isArray(id) ? 'an array' : typeof id}`;
}

export const successResponse = (id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccessResponse => ({
  jsonrpc: '2.0',
  id,
  result,
});

export const errorResponse = (id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse => ({
  jsonrpc: '2.0',
  id,
  error,
});

export const isErrorResponse = (message: JsonRpcResponse): message is JsonRpcErrorResponse =>
  Object.hasOwn(message, 'error');

/** True for a message (before framing checks) that asks to `initialize`. */
export const isInitializeMessage = (payload: unknown): boolean =>
  typeof payload === 'object' && payload !== null && (payload as { method?: unknown }).method === 'initialize';

/**
 * MCP params are always objects; anything else is `-32602` for the request
 * (docs/decisions/0002-error-codes-and-http-statuses.md).
 */
export const hasMalformedParams = (message: JsonRpcRequest): boolean =>
  message.params !== undefined && !isObject(message.params);
