import { Logger } from '@nestjs/common';
import type { McpProtocolVersion } from '../mcp.constants.js';
import type { McpDispatchContext } from '../protocol/mcp-dispatch-context.js';
import type { JsonRpcRequest } from '../protocol/json-rpc.js';
import type { McpRequestContext } from './mcp-request-context.js';
import { passesLogLevel } from '../logging/log-level.js';

const logger = new Logger('McpRequest');

/** A request context plus the switch that closes it once the response is decided. */
export interface OpenRequestContext {
  readonly context: McpRequestContext;
  /** After this, related messages are dropped: nothing may follow the response. */
  complete(): void;
}

/** Builds the context handed to handlers for one request. */
export function createRequestContext(
  request: JsonRpcRequest,
  params: Record<string, unknown>,
  dispatch: McpDispatchContext,
  protocolVersion: McpProtocolVersion,
  controller: AbortController = new AbortController(),
): OpenRequestContext {
  const meta = isObject(params._meta) ? params._meta : undefined;
  const progressToken = meta?.progressToken;
  let completed = false;
  let lastProgress = -Infinity;

  const sendNotification = async (method: string, notificationParams?: Record<string, unknown>) => {
    if (completed) {
      logger.debug(`Dropped ${method}: request ${String(request.id)} already has its response`);
      return;
    }
    if (!dispatch.sendRelated) {
      logger.debug(`Dropped ${method}: the transport has no channel for related messages`);
      return;
    }
    dispatch.sendRelated(
      notificationParams === undefined
        ? { jsonrpc: '2.0', method }
        : { jsonrpc: '2.0', method, params: notificationParams },
    );
  };

  const context: McpRequestContext = {
    requestId: request.id,
    method: request.method,
    sessionId: dispatch.session?.id,
    session: dispatch.session,
    protocolVersion,
    transport: dispatch.transport,
    request: dispatch.request,
    signal: controller.signal,
    meta,
    sendNotification,
    log: async (level, data, loggerName) => {
      if (!passesLogLevel(level, dispatch.session?.logLevel)) return;
      await sendNotification('notifications/message', {
        level,
        ...(loggerName !== undefined ? { logger: loggerName } : {}),
        data,
      });
    },
    reportProgress: async (progress, total, message) => {
      // Only when the client asked (a progress token), and strictly increasing (MCP MUST).
      if (!isProgressToken(progressToken) || !(progress > lastProgress)) return;
      lastProgress = progress;
      await sendNotification('notifications/progress', {
        progressToken,
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      });
    },
  };
  return {
    context,
    complete: () => {
      completed = true;
    },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isProgressToken = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
