import { Inject, Injectable } from '@nestjs/common';
import {
  FALLBACK_HEADER_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  type McpModernProtocolVersion,
  type McpProtocolVersion,
  MCP_RESOLVED_OPTIONS,
} from '../mcp.constants.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { RequestContext } from './request-context.js';
import {
  McpInvalidParamsException,
  McpInvalidRequestException,
  McpMethodNotFoundException,
} from '../errors/mcp-protocol.exceptions.js';
import {
  McpInvalidMetaException,
  McpModernEraDisabledException,
  McpModernMethodNotFoundException,
  McpUnsupportedVersionException,
} from '../errors/mcp-modern.exceptions.js';
import { McpException } from '../errors/mcp.exception.js';
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
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../model/json-rpc.js';
import type { McpAnswer } from './mcp-answer.js';
import type { McpDispatchContext } from './mcp-dispatch-context.js';
import { McpErrorMapper } from './mcp-error.mapper.js';
import { LazyAbortController, McpInflightRequests, McpRequestCancelledError } from './inflight-requests.js';
import { McpClientRequests } from '../client-requests/mcp-client-requests.js';
import { DiscoverHandler } from './modern/discover.handler.js';
import { ListenHandler } from './modern/listen.handler.js';
import { isModernMessage, readModernEnvelope } from './modern/modern-envelope.js';
import { McpModernResults } from './modern/modern-results.js';
import { McpMrtr, MRTR_METHODS } from './modern/mrtr.service.js';
import { principalDigest } from '../model/mcp-principal.js';
import { TasksHandler } from '../tasks/tasks.handler.js';

/** Methods that work before `initialize` on transports that have sessions. */
const PRE_INITIALIZE_METHODS = new Set(['initialize', 'ping']);

/** The methods of the modern era (MCP 2026-07-28); everything else is not found there. */
const MODERN_METHODS = new Set([
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
]);

/** The result a round that needs input answers with, in place of the handler's. */
const INPUT_REQUIRED: unique symbol = Symbol('input-required');

/**
 * The transport-agnostic protocol core: one entry, `dispatch(message, ctx)`, for every transport
 * and both protocol eras. Each message is classified on its own
 * (docs/decisions/0003-two-protocol-eras-on-one-endpoint.md): the modern era
 * (per-request `_meta`, `server/discover`) is served statelessly under 2026-07-28; everything
 * else is the legacy era of `initialize` and sessions. It checks framing, routes methods, gates
 * features, and turns every failure into the right JSON-RPC error. It never touches HTTP,
 * sockets or streams.
 */
@Injectable()
export class McpDispatcher {
  private readonly methods = new Map<string, McpMethodFn>();
  private readonly modernMethods = new Map<string, McpMethodFn>();
  private readonly groups: McpMethodGroup[];

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly sessions: McpSessionManager,
    private readonly errors: McpErrorMapper,
    private readonly stats: McpServerStats,
    private readonly inflight: McpInflightRequests,
    private readonly clientRequests: McpClientRequests,
    private readonly mrtr: McpMrtr,
    private readonly results: McpModernResults,
    lifecycle: LifecycleHandler,
    tools: ToolsHandler,
    private readonly resources: ResourcesHandler,
    private readonly prompts: PromptsHandler,
    subscriptions: SubscriptionsHandler,
    logging: LoggingHandler,
    private readonly completion: CompletionHandler,
    discover: DiscoverHandler,
    listen: ListenHandler,
    private readonly tasks: TasksHandler,
  ) {
    this.groups = [lifecycle, tools, resources, subscriptions, prompts, logging, completion, tasks];
    for (const group of this.groups) {
      for (const [name, fn] of Object.entries(group.methods())) {
        this.methods.set(name, fn);
        if (MODERN_METHODS.has(name)) this.modernMethods.set(name, fn);
      }
    }
    for (const group of [discover, listen, tasks.modern]) {
      for (const [name, fn] of Object.entries(group.methods())) this.modernMethods.set(name, fn);
    }
    lifecycle.useCapabilities(() => this.capabilities());
    discover.useCapabilities(() => this.modernCapabilities());
    listen.useCapabilities(() => this.modernCapabilities());
  }

  /**
   * Handles one parsed JSON value (a message, or a batch on 2025-03-26). Resolves to the answer
   * to send, serialized, or `undefined` when nothing is to be answered (notifications,
   * responses, a cancelled request). Never rejects: every failure, serialization included,
   * becomes a JSON-RPC error here.
   */
  async dispatch(payload: unknown, ctx: McpDispatchContext): Promise<McpAnswer | undefined> {
    if (!Array.isArray(payload)) {
      const outcome = await this.dispatchOne(payload, ctx);
      return outcome && this.toAnswer(outcome);
    }
    const refusal = this.refuseBatch(payload, ctx);
    if (refusal) return this.toAnswer(refusal);
    const outcomes = await Promise.all(payload.map((item) => this.dispatchBatchElement(item, ctx)));
    const parts: string[] = [];
    for (const outcome of outcomes) if (outcome) parts.push(this.errors.serialize(outcome.response, outcome.method));
    return parts.length > 0 ? { json: `[${parts.join(',')}]`, status: 200 } : undefined;
  }

  /** True when a message is served under the modern era on this endpoint. */
  isModern(payload: unknown, ctx: Pick<McpDispatchContext, 'eras' | 'envelope'>, headerVersion?: unknown): boolean {
    if (ctx.envelope) return true;
    const eras = ctx.eras ?? this.options.protocol;
    if (eras === 'modern') return true;
    return isModernMessage(payload, headerVersion);
  }

  /**
   * The version that governs a legacy message: negotiated, else the header's, else 2025-03-26
   * (docs/decisions/0006-protocol-version-negotiation.md).
   */
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

  /** The modern era's: the same, with resource subscriptions always offered (`subscriptions/listen` needs no session). */
  modernCapabilities(): Record<string, unknown> {
    const capabilities = this.capabilities();
    if (capabilities.resources) capabilities.resources = { ...capabilities.resources, subscribe: true };
    return this.tasks.modernCapabilities(capabilities);
  }

  /**
   * A batch is legacy by definition: MCP 2026-07-28 has none, and 2025-06-18 removed them. So it
   * is refused whole on a modern-only endpoint (or connection), on a transport with sessions
   * before `initialize`, and under any version but 2025-03-26 (the negotiated one, or, without
   * sessions, the header's; none means 2025-03-26).
   */
  private refuseBatch(batch: unknown[], ctx: McpDispatchContext): Outcome | undefined {
    const version = this.versionOf(ctx);
    let detail: string | undefined;
    if (ctx.envelope || (ctx.eras ?? this.options.protocol) === 'modern') {
      detail = 'JSON-RPC batches do not exist in MCP 2026-07-28: send one request per message';
    } else if (ctx.sessionsEnabled && !ctx.session) {
      detail = 'JSON-RPC batches need a session that negotiated 2025-03-26: send initialize first, on its own';
    } else if (version !== '2025-03-26') detail = `JSON-RPC batches are not supported on protocol version ${version}`;
    else if (batch.length === 0) detail = 'An empty batch is not a valid request';
    else if (batch.some((item) => (item as { method?: unknown } | null)?.method === 'initialize')) {
      detail = 'initialize must not be sent in a batch';
    }
    return detail === undefined ? undefined : failure(null, new McpInvalidRequestException(detail), 'batch');
  }

  private toAnswer(outcome: Outcome): McpAnswer {
    const json = this.errors.serialize(outcome.response, outcome.method);
    return outcome.headers
      ? { json, status: outcome.status, headers: outcome.headers }
      : { json, status: outcome.status };
  }

  /**
   * One element of an admitted batch: always the legacy era. An element written for the modern
   * era (its `_meta` protocol version, or `server/discover`) is refused with `-32600` and never
   * runs: it would otherwise skip the checks a modern request gets on its own (its headers).
   */
  private async dispatchBatchElement(value: unknown, ctx: McpDispatchContext): Promise<Outcome | undefined> {
    // Admitted batches are neither on a modern-only endpoint nor modern by their headers, so an
    // element that is not modern by itself is dispatched as the legacy request it is.
    if (!isModernMessage(value)) return this.dispatchOne(value, ctx);
    const id = (value as { id?: unknown }).id;
    // A modern notification has no id to answer: it is dropped like any unknown notification.
    if (id === undefined) return undefined;
    const exception = new McpInvalidRequestException(
      'A 2026-07-28 request cannot be part of a JSON-RPC batch: send it on its own',
    );
    return failure(isValidId(id) ? id : null, exception, 'batch');
  }

  private async dispatchOne(value: unknown, ctx: McpDispatchContext): Promise<Outcome | undefined> {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'invalid':
        return failure(classified.id, new McpInvalidRequestException(classified.detail), 'message');
      case 'notification':
        await this.handleNotification(classified.message, ctx);
        return undefined;
      case 'response':
        // An answer to a server→client request, taken only from the session that was asked.
        if (ctx.session) this.clientRequests.receive(ctx.session.id, classified.message, ctx.auth);
        return undefined;
      case 'request':
        return this.isModern(classified.message, ctx)
          ? this.handleModern(classified.message, ctx)
          : this.handleLegacy(classified.message, ctx);
    }
  }

  /** A legacy-era request: sessions, `initialize`, the negotiated version. */
  private async handleLegacy(request: JsonRpcRequest, ctx: McpDispatchContext): Promise<Outcome | undefined> {
    return this.run(request, ctx, async (controller) => {
      const method = this.methods.get(request.method);
      if (!method || !this.isAvailable(request.method)) throw new McpMethodNotFoundException(request.method);
      if (ctx.sessionsEnabled && !ctx.session && !PRE_INITIALIZE_METHODS.has(request.method)) {
        throw new McpInvalidRequestException('Send initialize before any other request', 'Server not initialized');
      }
      if (hasMalformedParams(request)) throw new McpInvalidParamsException("The 'params' member must be an object");
      const params = request.params ?? {};
      const context = new RequestContext({
        rpc: request,
        params,
        dispatch: ctx,
        protocolVersion: this.versionOf(ctx),
        controller,
        clientRequests: this.clientRequests,
      });
      try {
        return await method(params, context, ctx);
      } finally {
        context.complete();
      }
    });
  }

  /**
   * A modern-era request (MCP 2026-07-28), served statelessly: the `_meta` envelope checked
   * first, then the version, then the method; `resultType`, the server's identity and caching
   * hints on every result; `input_required` when a handler asks the client (MRTR).
   */
  private async handleModern(request: JsonRpcRequest, ctx: McpDispatchContext): Promise<Outcome | undefined> {
    const outcome = await this.run(request, ctx, async (controller) => {
      const eras = ctx.eras ?? this.options.protocol;
      if (eras === 'legacy') throw new McpModernEraDisabledException();
      if (request.method === 'initialize' && !isModernMessage(request)) {
        // A legacy client in 'modern' mode: named versions are the only diagnostic it can show.
        throw new McpUnsupportedVersionException(request.params?.protocolVersion, MODERN_PROTOCOL_VERSIONS);
      }
      if (hasMalformedParams(request))
        throw new McpInvalidMetaException("A modern request needs 'params' with '_meta'");
      const params = request.params ?? {};
      const envelope = ctx.envelope ?? readModernEnvelope(params);
      if (!(MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(envelope.protocolVersion)) {
        throw new McpUnsupportedVersionException(envelope.protocolVersion, MODERN_PROTOCOL_VERSIONS);
      }
      const method = this.modernMethods.get(request.method);
      if (!method || !this.isAvailable(request.method)) throw new McpModernMethodNotFoundException(request.method);
      // The request state of a multi round-trip request is bound to the principal (resource-server mode).
      const principal = principalDigest(ctx.auth);
      const round = MRTR_METHODS.has(request.method)
        ? await this.mrtr.openRound(request, params, principal)
        : undefined;
      const context = new RequestContext({
        rpc: request,
        params,
        dispatch: ctx,
        protocolVersion: envelope.protocolVersion as McpModernProtocolVersion,
        controller,
        modern: { envelope, round },
      });
      let result: Record<string, unknown> | typeof INPUT_REQUIRED;
      try {
        result = round
          ? await round.race(method(params, context, ctx), INPUT_REQUIRED)
          : await method(params, context, ctx);
      } finally {
        context.complete();
      }
      if (result === INPUT_REQUIRED) return this.mrtr.inputRequired(round!, request, params, principal);
      const retried = params.inputResponses !== undefined || params.requestState !== undefined;
      return this.results.complete(request.method, result, retried);
    });
    return outcome && modernError(outcome);
  }

  /**
   * Runs a request's work with what every request gets: counting, cancellation tracking (a
   * duplicate in-flight id is refused), the transport's cancellation linked in, the error
   * mapper, and no answer at all once cancelled.
   */
  private async run(
    request: JsonRpcRequest,
    ctx: McpDispatchContext,
    work: (controller: LazyAbortController) => Promise<Record<string, unknown>>,
  ): Promise<Outcome | undefined> {
    this.stats.recordRequest();
    const controller = new LazyAbortController();
    // initialize cannot be cancelled; without a scope a cancellation could not be attributed.
    const scope = ctx.connectionId ?? ctx.session?.id;
    let finish: (() => void) | undefined;
    try {
      if (scope !== undefined && request.method !== 'initialize') {
        finish = this.inflight.start(scope, request.id, controller);
        if (!finish) {
          throw new McpInvalidRequestException(
            `Request id ${JSON.stringify(request.id)} is already in flight here; use a fresh id`,
          );
        }
      }
      // The transport can no longer deliver the answer: the request is cancelled (never
      // answered, never logged as a failure).
      ctx.onDropped?.(() => controller.abort(new McpRequestCancelledError('The answer can no longer be delivered')));
      const result = await work(controller);
      if (controller.reason instanceof McpRequestCancelledError) return undefined;
      return { response: successResponse(request.id, result), status: 200, method: request.method };
    } catch (error) {
      if (controller.reason instanceof McpRequestCancelledError) return undefined;
      return failure(request.id, this.errors.toException(error, request.method), request.method);
    } finally {
      finish?.();
    }
  }

  /** Notifications are never answered; a failure handling one is logged, not sent. */
  private async handleNotification(notification: JsonRpcNotification, ctx: McpDispatchContext): Promise<void> {
    const session = ctx.session;
    try {
      if (notification.method === 'notifications/cancelled') {
        const scope = ctx.connectionId ?? session?.id;
        const { requestId, reason } = notification.params ?? {};
        // Unknown, finished or malformed ids are ignored, as the specification asks.
        if (scope !== undefined && isValidId(requestId)) {
          this.inflight.cancel(scope, requestId, typeof reason === 'string' ? reason : undefined);
        }
      } else if (notification.method === 'notifications/initialized' && session && !session.initialized) {
        session.initialized = true;
        await this.sessions.update(session.id, { initialized: true });
      }
    } catch (error) {
      this.errors.toException(error, notification.method);
    }
    // Other notifications (and any "notification" naming a request method) are ignored: a
    // message without an id never runs a handler.
  }

  private isAvailable(method: string): boolean {
    if (method.startsWith('resources/')) return this.resources.available;
    if (method.startsWith('prompts/')) return this.prompts.available;
    if (method === 'completion/complete') return this.completion.available;
    if (method.startsWith('tasks/')) return this.tasks.available;
    return true;
  }
}

/** A response before serialization, with the HTTP status it rides on. */
interface Outcome {
  readonly response: JsonRpcResponse;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The method it answers, for the log line of a serialization failure. */
  readonly method: string;
}

const failure = (id: JsonRpcId | null, exception: McpException, method: string): Outcome => ({
  response: errorResponse(id, exception.toJsonRpcError()),
  status: exception.httpStatus ?? 200,
  headers: exception.httpHeaders,
  method,
});

/**
 * The modern era answers "resource not found" with `-32602` and `data: { uri }`, never `-32002`.
 * `data` holds the URI alone: that is how clients tell it from other invalid params (the
 * TypeScript SDK v2 client makes it a `ResourceNotFoundError` only then), so the detail goes
 * into the message.
 */
function modernError(outcome: Outcome): Outcome {
  const error = (outcome.response as { error?: { code: number; data?: Record<string, unknown> } }).error;
  if (error?.code !== JsonRpcErrorCode.ResourceNotFound) return outcome;
  const detail = typeof error.data?.detail === 'string' ? `: ${error.data.detail}` : '';
  const exception = new McpException(JsonRpcErrorCode.InvalidParams, `Resource not found${detail}`, undefined, {
    uri: error.data?.uri,
  });
  return failure(outcome.response.id, exception, outcome.method);
}
