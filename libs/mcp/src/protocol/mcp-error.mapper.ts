import { HttpException, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { toLogStack } from '../logging/log-text.js';
import { McpLogger } from '../logging/mcp-logger.js';
import { McpException } from '../errors/mcp.exception.js';
import { McpInternalErrorException, McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';
import { McpServiceUnavailableException } from '../errors/mcp-transport.exceptions.js';
import { McpBackendUnavailableError } from '../backend/mcp-backend.interface.js';
import { stringifyJson } from '../model/raw-json.js';
import { errorResponse, JsonRpcErrorCode, type JsonRpcErrorObject, type JsonRpcResponse } from '../model/json-rpc.js';

/** The text of an `HttpException`, as Nest's `ValidationPipe` and friends shape it. */
export function httpExceptionDetail(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : error.message;
}

/**
 * The one place where exceptions become JSON-RPC errors:
 * - `McpException` keeps its code, message and detail;
 * - `HttpException`: 400/404/422 → `-32602` (the handler rejected its input), 401 → `-32005`,
 *   403 (a guard said no) → `-32003`, 429 → `-32004`, other 4xx → `-32602`, 5xx → `-32603`;
 * - `McpBackendUnavailableError` (the backend is down) → `-32000` "Service unavailable", 503;
 * - anything else → `-32603` with a correlation id; its text is logged, never sent.
 *
 * It is also the one place that serializes responses (`serialize`), so a result JSON cannot
 * hold becomes a `-32603` for the request's own id instead of a transport failure.
 */
@Injectable()
export class McpErrorMapper {
  private readonly logger = new McpLogger('McpErrors');

  toJsonRpcError(error: unknown, method: string): JsonRpcErrorObject {
    return this.toException(error, method).toJsonRpcError();
  }

  toException(error: unknown, method: string): McpException {
    if (error instanceof McpException) return error;
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const detail = httpExceptionDetail(error);
      if (status === 401) return new McpException(JsonRpcErrorCode.Unauthorized, 'Unauthorized', detail);
      if (status === 403) return new McpException(JsonRpcErrorCode.Forbidden, 'Forbidden', detail);
      if (status === 429) return new McpException(JsonRpcErrorCode.TooManyRequests, 'Too many requests', detail);
      if (status < 500) return new McpInvalidParamsException(detail);
    }
    if (error instanceof McpBackendUnavailableError) {
      this.logger.warn(`Backend unavailable in ${method}: ${error.message}`);
      return new McpServiceUnavailableException();
    }
    return this.internal(error, method);
  }

  /**
   * Serializes a response. A result that JSON cannot hold (a BigInt, a cycle, a throwing
   * `toJSON`) is logged and answered with `-32603` for the same request id.
   */
  serialize(response: JsonRpcResponse, method: string): string {
    try {
      return stringifyJson(response);
    } catch (error) {
      const failure = this.internal(error, `${method} (serializing its result)`);
      return JSON.stringify(errorResponse(response.id, failure.toJsonRpcError()));
    }
  }

  /** Logs an unexpected error under a fresh correlation id and hides its text from the client. */
  internal(error: unknown, method: string): McpInternalErrorException {
    const correlationId = randomUUID();
    const text = error instanceof Error ? `${error.name}: ${error.message}` : inspect(error, { depth: 3 });
    // Foreign errors may carry request data (an upstream client's headers, a token in a URL) and
    // a client's own text: the logger redacts, escapes and bounds it; the frames follow apart.
    const frames = error instanceof Error && error.stack ? toLogStack(error.stack, true) : '';
    const line = `Unexpected error in ${method} (correlation id ${correlationId}): ${text}`;
    if (frames) this.logger.error(line, frames);
    else this.logger.error(line);
    return new McpInternalErrorException(correlationId);
  }
}
