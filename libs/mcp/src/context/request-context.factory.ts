import { Logger } from '@nestjs/common';
import type { McpProtocolVersion } from '../mcp.constants.js';
import type { McpDispatchContext } from '../protocol/mcp-dispatch-context.js';
import type { JsonRpcRequest } from '../protocol/json-rpc.js';
import type { McpRequestContext } from './mcp-request-context.js';
import { randomUUID } from 'node:crypto';
import { passesLogLevel } from '../logging/log-level.js';
import { assertCanElicit, assertCanListRoots, assertCanSample } from '../client-requests/client-capabilities.js';
import type { McpElicitResult, McpRoot, McpSamplingResult } from '../client-requests/client-request.types.js';
import type { McpClientRequests } from '../client-requests/mcp-client-requests.js';
import { LazyAbortController } from '../protocol/inflight-requests.js';

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
  controller: LazyAbortController = new LazyAbortController(),
  clientRequests?: McpClientRequests,
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

  /** A server→client request on this request's channel, withdrawn if this request is. */
  const ask = async (method: string, requestParams: Record<string, unknown>, timeoutMs?: number) => {
    const session = dispatch.session;
    if (!session || !clientRequests || !dispatch.sendRelated) {
      throw new Error(`${method} needs a session with a channel to the client (not stateless HTTP)`);
    }
    if (completed) throw new Error(`${method} cannot be sent after the response of request ${String(request.id)}`);
    return clientRequests.request(session.id, method, requestParams, {
      send: (message) => dispatch.sendRelated!(message),
      signal: controller.signal,
      timeoutMs,
    });
  };
  const capabilities = () => dispatch.session?.clientCapabilities;

  const context: McpRequestContext = {
    requestId: request.id,
    method: request.method,
    sessionId: dispatch.session?.id,
    session: dispatch.session,
    protocolVersion,
    transport: dispatch.transport,
    request: dispatch.request,
    get signal() {
      return controller.signal;
    },
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
    elicit: async (elicitParams, options) => {
      const url = elicitParams.mode === 'url';
      assertCanElicit(capabilities(), url ? 'url' : 'form');
      const wire = url ? { ...elicitParams, elicitationId: elicitParams.elicitationId ?? randomUUID() } : elicitParams;
      return (await ask('elicitation/create', wire as Record<string, unknown>, options?.timeoutMs)) as McpElicitResult;
    },
    sample: async (sampleParams, options) => {
      assertCanSample(capabilities(), sampleParams);
      return (await ask('sampling/createMessage', sampleParams, options?.timeoutMs)) as McpSamplingResult;
    },
    listRoots: async (options) => {
      assertCanListRoots(capabilities());
      const result = await ask('roots/list', {}, options?.timeoutMs);
      return { roots: Array.isArray(result.roots) ? (result.roots as McpRoot[]) : [] };
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
