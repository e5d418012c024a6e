import { Injectable } from '@nestjs/common';
import { FALLBACK_HEADER_PROTOCOL_VERSION, type McpProtocolVersion } from '../mcp.constants.js';
import { createRequestContext } from '../context/request-context.factory.js';
import {
  McpInvalidParamsException,
  McpInvalidRequestException,
  McpMethodNotFoundException,
} from '../errors/mcp-protocol.exceptions.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { McpServerStats } from '../session/mcp-server-stats.js';
import { LifecycleHandler } from './handlers/lifecycle.handler.js';
import type { McpMethodFn, McpMethodGroup } from './handlers/mcp-method.types.js';
import { PromptsHandler } from './handlers/prompts.handler.js';
import { ResourcesHandler } from './handlers/resources.handler.js';
import { SubscriptionsHandler } from './handlers/subscriptions.handler.js';
import { LoggingHandler } from './handlers/logging.handler.js';
import { CompletionHandler } from './handlers/completion.handler.js';
import { ToolsHandler } from './handlers/tools.handler.js';
import {
  classifyMessage,
  errorResponse,
  hasMalformedParams,
  isValidId,
  JsonRpcErrorCode,
  successResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.js';
import type { McpDispatchContext } from './mcp-dispatch-context.js';
import { McpErrorMapper } from './mcp-error.mapper.js';
import { LazyAbortController, McpInflightRequests, McpRequestCancelledError } from './inflight-requests.js';
import { McpClientRequests } from '../client-requests/mcp-client-requests.js';

/** Methods that work before `initialize` on transports that have sessions. */
const PRE_INITIALIZE_METHODS = new Set(['initialize', 'ping']);

/**
 * The transport-agnostic protocol core: one entry, `dispatch(message, ctx)`, for every transport.
 * It checks framing, routes methods, gates features, and turns every failure into the right
 * JSON-RPC error. It never touches HTTP, sockets or streams.
 */
@Injectable()
export class McpDispatcher {
  private readonly methods = new Map<string, McpMethodFn>();
  private readonly groups: McpMethodGroup[];

  constructor(
    private readonly sessions: McpSessionManager,
    private readonly errors: McpErrorMapper,
    private readonly stats: McpServerStats,
    private readonly inflight: McpInflightRequests,
    private readonly clientRequests: McpClientRequests,
    lifecycle: LifecycleHandler,
    tools: ToolsHandler,
    private readonly resources: ResourcesHandler,
    private readonly prompts: PromptsHandler,
    subscriptions: SubscriptionsHandler,
    logging: LoggingHandler,
    private readonly completion: CompletionHandler,
  ) {
    this.groups = [lifecycle, tools, resources, subscriptions, prompts, logging, completion];
    for (const group of this.groups) {
      for (const [name, fn] of Object.entries(group.methods())) this.methods.set(name, fn);
    }
    lifecycle.useCapabilities(() => this.capabilities());
  }

  /**
   * Handles one parsed JSON value (a message, or a batch on 2025-03-26). Resolves to the
   * response(s) to send, or `undefined` when nothing is to be answered (notifications, responses).
   */
  async dispatch(payload: unknown, ctx: McpDispatchContext): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    return Array.isArray(payload) ? this.dispatchBatch(payload, ctx) : this.dispatchOne(payload, ctx);
  }

  /** The version that governs a message: negotiated, else the header's, else 2025-03-26 (D3). */
  versionOf(ctx: McpDispatchContext): McpProtocolVersion {
    return ctx.session?.protocolVersion ?? ctx.headerProtocolVersion ?? FALLBACK_HEADER_PROTOCOL_VERSION;
  }

  /** Capabilities are declared only for the features that exist. */
  capabilities(): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {};
    for (const group of this.groups) {
      const entry = group.capability?.();
      if (entry) capabilities[entry[0]] = entry[1];
    }
    return capabilities;
  }

  private async dispatchBatch(batch: unknown[], ctx: McpDispatchContext) {
    const version = this.versionOf(ctx);
    if (version !== '2025-03-26') {
      return invalidRequest(`JSON-RPC batches are not supported on protocol version ${version}`);
    }
    if (batch.length === 0) return invalidRequest('An empty batch is not a valid request');
    if (batch.some((item) => (item as { method?: unknown } | null)?.method === 'initialize')) {
      return invalidRequest('initialize must not be sent in a batch');
    }
    const responses = await Promise.all(batch.map((item) => this.dispatchOne(item, ctx)));
    const answered = responses.filter((response): response is JsonRpcResponse => response !== undefined);
    return answered.length > 0 ? answered : undefined;
  }

  private async dispatchOne(value: unknown, ctx: McpDispatchContext): Promise<JsonRpcResponse | undefined> {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'invalid':
        return errorResponse(classified.id, new McpInvalidRequestException(classified.detail).toJsonRpcError());
      case 'notification':
        await this.handleNotification(classified.message, ctx);
        return undefined;
      case 'response':
        // An answer to a server→client request, taken only from the session that was asked.
        if (ctx.session) this.clientRequests.receive(ctx.session.id, classified.message);
        return undefined;
      case 'request':
        return this.handleRequest(classified.message, ctx);
    }
  }

  /** Answers a request; `undefined` when the client cancelled it (no response is sent then). */
  private async handleRequest(request: JsonRpcRequest, ctx: McpDispatchContext): Promise<JsonRpcResponse | undefined> {
    const method = this.methods.get(request.method);
    this.stats.recordRequest();
    const controller = new LazyAbortController();
    // initialize cannot be cancelled; without a session a cancellation could not be attributed.
    const finish =
      ctx.session && request.method !== 'initialize'
        ? this.inflight.start(ctx.session.id, request.id, controller)
        : undefined;
    let response: JsonRpcResponse;
    try {
      if (!method || !this.isAvailable(request.method)) throw new McpMethodNotFoundException(request.method);
      if (ctx.sessionsEnabled && !ctx.session && !PRE_INITIALIZE_METHODS.has(request.method)) {
        throw new McpInvalidRequestException('Send initialize before any other request', 'Server not initialized');
      }
      if (hasMalformedParams(request)) throw new McpInvalidParamsException("The 'params' member must be an object");
      const params = request.params ?? {};
      const open = createRequestContext(request, params, ctx, this.versionOf(ctx), controller, this.clientRequests);
      try {
        response = successResponse(request.id, await method(params, open.context, ctx));
      } finally {
        open.complete();
      }
    } catch (error) {
      response = errorResponse(request.id, this.errors.toJsonRpcError(error, request.method));
    } finally {
      finish?.();
    }
    return controller.reason instanceof McpRequestCancelledError ? undefined : response;
  }

  private async handleNotification(notification: JsonRpcNotification, ctx: McpDispatchContext): Promise<void> {
    if (notification.method === 'notifications/initialized' && ctx.session && !ctx.session.initialized) {
      ctx.session.initialized = true;
      await this.sessions.markInitialized(ctx.session.id);
    }
    if (notification.method === 'notifications/cancelled' && ctx.session) {
      const { requestId, reason } = notification.params ?? {};
      // Unknown, finished or malformed ids are ignored, as the specification asks.
      if (isValidId(requestId)) {
        this.inflight.cancel(ctx.session.id, requestId, typeof reason === 'string' ? reason : undefined);
      }
    }
    // Other notifications (and any "notification" naming a request method) are ignored: a
    // message without an id never runs a handler.
  }

  private isAvailable(method: string): boolean {
    if (method.startsWith('resources/')) return this.resources.available;
    if (method.startsWith('prompts/')) return this.prompts.available;
    if (method === 'completion/complete') return this.completion.available;
    return true;
  }
}

const invalidRequest = (detail: string): JsonRpcResponse =>
  errorResponse(null, { code: JsonRpcErrorCode.InvalidRequest, message: 'Invalid Request', data: { detail } });
