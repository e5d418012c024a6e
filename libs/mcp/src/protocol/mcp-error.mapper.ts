import { HttpException, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { McpException } from '../errors/mcp.exception.js';
import { McpInternalErrorException, McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';
import { JsonRpcErrorCode, type JsonRpcErrorObject } from './json-rpc.js';

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
 * - anything else → `-32603` with a correlation id; its text is logged, never sent.
 */
@Injectable()
export class McpErrorMapper {
  private readonly logger = new Logger('McpErrors');

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
    return this.internal(error, method);
  }

  /** Logs an unexpected error under a fresh correlation id and hides its text from the client. */
  internal(error: unknown, method: string): McpInternalErrorException {
    const correlationId = randomUUID();
    const text = error instanceof Error ? (error.stack ?? error.message) : inspect(error, { depth: 3 });
    this.logger.error(`Unexpected error in ${method} (correlation id ${correlationId}): ${text}`);
    return new McpInternalErrorException(correlationId);
  }
}
