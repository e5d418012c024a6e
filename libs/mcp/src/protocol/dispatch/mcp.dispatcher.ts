import { Injectable } from '@nestjs/common';
import { McpInvalidRequestException } from '../../errors/mcp-protocol.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { JsonRpcErrorCode, type JsonRpcId } from '../../model/json-rpc.js';
import type { McpAnswer } from '../mcp-answer.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpErrorMapper } from '../mcp-error.mapper.js';
import type { Inbound, InboundMessage } from '../inbound/inbound.js';
import { LegacyEra } from '../eras/legacy.era.js';
import { ModernEra } from '../eras/modern.era.js';
import { McpTelemetry, type McpRefusalReason } from '../../telemetry/mcp-telemetry.js';
import { McpRequestRun, failure, type Outcome } from './request-run.js';
import { McpInboundNotifications } from './inbound-notifications.js';
import { NO_OPERATION, type McpOperation, type McpOperationOutcome } from '../../telemetry/mcp-operation.js';
import { ERROR_TYPE_OTHER } from '../../telemetry/semconv.js';

/**
 * The transport-agnostic protocol core: one entry, `dispatch(inbound, ctx)`, for every transport
 * and both protocol eras, on frames the inbound classifier has classified already (each message's
 * era decided once, a modern request's envelope and headers checked;
 * docs/decisions/0003-two-protocol-eras-on-one-endpoint.md). It admits batches, runs each request
 * in its era with what every request gets (counting, cancellation, the error mapper), handles
 * notifications and client answers, and serializes every answer, in one place. It never touches
 * HTTP, sockets or streams.
 */
@Injectable()
export class McpDispatcher {
  constructor(
    private readonly legacy: LegacyEra,
    private readonly modern: ModernEra,
    private readonly requests: McpRequestRun,
    private readonly notifications: McpInboundNotifications,
    private readonly errors: McpErrorMapper,
    private readonly telemetry: McpTelemetry,
  ) {}

  /**
   * Handles one classified frame (a message, or a batch on 2025-03-26). Resolves to the answer to
   * send, serialized, or `undefined` when nothing is to be answered (notifications, responses, a
   * cancelled request). Every failure, serialization included, becomes a JSON-RPC error here; it
   * rejects only when `prepare` does, with the exception the error mapper made of its failure.
   *
   * `prepare` is the transport's own work before the message is served: the lookup of a 2025-era
   * session, which sets `ctx.session`. For one 2025-era request or notification it runs inside
   * the message's operation, so its time and its backend round trip (a span under the SERVER
   * span) belong to the message; for anything else, before.
   */
  dispatch(inbound: Inbound, ctx: McpDispatchContext, prepare?: () => Promise<void>): Promise<McpAnswer | undefined> {
    // One message (nearly every frame): served, then its answer serialized.
    if (inbound.kind === 'single') return this.dispatchOne(inbound.message, ctx, prepare).then(this.answerOf);
    return this.dispatchFrame(inbound, ctx, prepare);
  }

  /** A refused frame, or a batch: `prepare` runs first. */
  private async dispatchFrame(
    inbound: Exclude<Inbound, { kind: 'single' }>,
    ctx: McpDispatchContext,
    prepare: (() => Promise<void>) | undefined,
  ): Promise<McpAnswer | undefined> {
    if (prepare) await prepare();
    if (inbound.kind === 'refused') {
      // A batch where the era has none.
      this.refused(inbound.error, ctx, 'era');
      return this.answerOf(failure(null, inbound.error, 'batch'));
    }
    const refusal = this.refuseBatch(inbound.elements, ctx);
    if (refusal) {
      this.refused(refusal.exception, ctx, refusal.reason);
      return this.answerOf(failure(null, refusal.exception, 'batch'));
    }
    // A modern notification inside a batch is dropped (a modern request there was refused
    // when it was classified): nothing written for 2026-07-28 runs from a batch.
    const outcomes = await Promise.all(
      inbound.elements.map((message) =>
        message.kind === 'notification' && message.era === 'modern'
          ? Promise.resolve(undefined)
          : this.dispatchOne(message, ctx, undefined),
      ),
    );
    const parts: string[] = [];
    for (const outcome of outcomes) {
      if (outcome) parts.push(this.errors.serialize(outcome.response, outcome.method));
    }
    return parts.length > 0 ? { json: `[${parts.join(',')}]`, status: 200 } : undefined;
  }

  /**
   * A batch is admitted on a transport with sessions only once `initialize` negotiated
   * 2025-03-26, and without sessions only under that version (the header's; none means
   * 2025-03-26): 2025-06-18 removed batches.
   */
  private refuseBatch(
    elements: readonly InboundMessage[],
    ctx: McpDispatchContext,
  ): { exception: McpException; reason: McpRefusalReason } | undefined {
    let detail: string | undefined;
    // Refused for its era (no 2025-03-26 session to carry it), or as malformed.
    let reason: McpRefusalReason = 'era';
    const version = this.legacy.versionOf(ctx);
    if (ctx.sessionsEnabled && !ctx.session) {
      detail = 'JSON-RPC batches need a session that negotiated 2025-03-26: send initialize first, on its own';
    } else if (version !== '2025-03-26') detail = `JSON-RPC batches are not supported on protocol version ${version}`;
    else {
      reason = 'invalid';
      if (elements.length === 0) detail = 'An empty batch is not a valid request';
      else if (elements.some(namesInitialize)) detail = 'initialize must not be sent in a batch';
    }
    return detail === undefined ? undefined : { exception: new McpInvalidRequestException(detail), reason };
  }

  /** Counts a request refused before it ran (`nest_mcp.requests.refused`), once. */
  private refused(exception: McpException, ctx: McpDispatchContext, reason?: McpRefusalReason): void {
    this.requests.refused(exception, ctx, reason);
  }

  /** The answer to an outcome, serialized; none for no outcome (a `then` callback: bound once). */
  private readonly answerOf = (outcome: Outcome | undefined): McpAnswer | undefined => {
    if (!outcome) return undefined;
    const json = this.errors.serialize(outcome.response, outcome.method);
    return outcome.headers
      ? { json, status: outcome.status, headers: outcome.headers }
      : { json, status: outcome.status };
  };

  /**
   * Serves one message inside its operation: the SERVER span every inbound request or
   * notification gets (active while it runs, so what the handler does nests under it) and its
   * `mcp.server.operation.duration`. When telemetry records nothing (no SDK, no propagator, no
   * ambient span, no duration: asked per message) there is no operation, and the message is
   * served without one.
   *
   * `prepare` runs inside the operation of a 2025-era request or notification and of a refused
   * message (a refusal of the transport's then ends that message's span); before anything else
   * for the rest.
   */
  private async dispatchOne(
    message: InboundMessage,
    ctx: McpDispatchContext,
    prepare: (() => Promise<void>) | undefined,
  ): Promise<Outcome | undefined> {
    switch (message.kind) {
      case 'invalid': {
        // Refused before it ran, and answered: its span too, `_OTHER` when it names no method.
        const method = message.method ?? ERROR_TYPE_OTHER;
        const operation = this.operation(method, message.id ?? undefined, undefined, ctx, undefined);
        // The transport's checks come first (what a refused lookup answers wins), inside the span.
        if (prepare) await this.prepareIn(operation, prepare, method);
        this.refused(message.error, ctx, message.refusal);
        const outcome = failure(message.id, message.error, message.method ?? 'message');
        operation?.end(outcomeOf(method, outcome, ctx));
        return outcome;
      }
      case 'notification': {
        const { method, params } = message.notification;
        const legacy = message.era === 'legacy';
        if (prepare && !legacy) await prepare();
        // A 2025-era message's version is the session's: known now, or, with `prepare` (the
        // session lookup, run inside the operation), at its end.
        const operation = this.operation(
          method,
          undefined,
          params,
          ctx,
          legacy && !prepare && method !== 'initialize' ? this.legacy.versionOf(ctx) : undefined,
        );
        if (prepare && legacy) await this.prepareIn(operation, prepare, method);
        await (operation
          ? operation.run(() => this.notifications.notification(message.notification, ctx))
          : this.notifications.notification(message.notification, ctx));
        // A prepared (2025-era) message knows its session and version after its lookup.
        operation?.end(
          prepare && legacy ? { protocolVersion: this.legacy.versionOf(ctx), sessionId: ctx.session?.id } : {},
        );
        return undefined;
      }
      case 'response':
        if (prepare) await prepare();
        this.notifications.answer(message.response, ctx);
        return undefined;
      case 'request': {
        const { request } = message;
        if (message.era === 'legacy') {
          // `initialize` negotiates its version, and a prepared message knows it after its lookup.
          const late = prepare !== undefined || request.method === 'initialize';
          const operation = this.operation(
            request.method,
            request.id,
            request.params,
            ctx,
            late ? undefined : this.legacy.versionOf(ctx),
          );
          if (prepare) await this.prepareIn(operation, prepare, request.method);
          if (!operation) return this.requests.run(request, ctx, this.legacy, request);
          const outcome = await operation.run(() => this.requests.run(request, ctx, this.legacy, request));
          operation.end(outcomeOf(request.method, outcome, ctx, late ? this.legacy.versionOf(ctx) : undefined));
          return outcome;
        }
        if (prepare) await prepare();
        const operation = this.operation(
          request.method,
          request.id,
          request.params,
          ctx,
          message.envelope.protocolVersion,
        );
        if (!operation) return this.requests.run(request, ctx, this.modern, message).then(modernError);
        const outcome = modernError(await operation.run(() => this.requests.run(request, ctx, this.modern, message)));
        operation.end(outcomeOf(request.method, outcome, ctx));
        return outcome;
      }
    }
  }

  /**
   * Runs the transport's `prepare` inside `operation` (when there is one). A failure ends the
   * operation with the error and rejects with the exception the mapper made of it (the
   * transport answers it as before).
   */
  private prepareIn(operation: McpOperation | undefined, prepare: () => Promise<void>, method: string): Promise<void> {
    let prepared: Promise<void>;
    try {
      prepared = operation ? operation.run(prepare) : prepare();
    } catch (error) {
      // A `prepare` that throws instead of rejecting fails the same way.
      return Promise.reject(this.prepareFailed(operation, error, method));
    }
    return prepared.catch((error: unknown) => {
      throw this.prepareFailed(operation, error, method);
    });
  }

  /** The exception a failed `prepare` is answered with; its operation ended with it. */
  private prepareFailed(operation: McpOperation | undefined, error: unknown, method: string): McpException {
    const exception = this.errors.toException(error, method);
    operation?.end({ error: exception.toJsonRpcError() });
    return exception;
  }

  /** The operation of one message; undefined when telemetry records nothing of it. */
  private operation(
    method: string,
    id: JsonRpcId | undefined,
    params: unknown,
    ctx: McpDispatchContext,
    protocolVersion: string | undefined,
  ): McpOperation | undefined {
    const operation = this.telemetry.startOperation({
      method,
      id,
      params,
      transport: ctx.transport,
      request: ctx.request,
      protocolVersion,
      sessionId: ctx.session?.id,
      principal: ctx.auth,
      receivedAt: ctx.receivedAt,
    });
    return operation === NO_OPERATION ? undefined : operation;
  }
}

/** How a served message ended, for its span and duration. */
function outcomeOf(
  method: string,
  outcome: Outcome | undefined,
  ctx: McpDispatchContext,
  protocolVersion?: string,
): McpOperationOutcome {
  const sessionId = ctx.session?.id;
  // A listen ends when its client closes the stream: that is how listens end, not a failure.
  if (!outcome)
    return method === 'subscriptions/listen' ? { sessionId } : { cancelled: true, sessionId, protocolVersion };
  const response = outcome.response as {
    error?: { code: number; message: string };
    result?: { isError?: unknown; resultType?: unknown };
  };
  if (response.error) return { error: response.error, sessionId, protocolVersion };
  const resultType = response.result?.resultType;
  return {
    toolError: response.result?.isError === true,
    sessionId,
    protocolVersion,
    resultType: typeof resultType === 'string' && resultType !== 'complete' ? resultType : undefined,
  };
}

const namesInitialize = (message: InboundMessage): boolean =>
  (message.kind === 'request' && message.request.method === 'initialize') ||
  (message.kind === 'invalid' && message.method === 'initialize');

/**
 * The modern era answers "resource not found" with `-32602` and `data: { uri }`, never `-32002`.
 * `data` holds the URI alone: that is how clients tell it from other invalid params (the
 * TypeScript SDK v2 client makes it a `ResourceNotFoundError` only then), so the detail goes
 * into the message.
 */
function modernError(outcome: Outcome | undefined): Outcome | undefined {
  // None: the request was cancelled.
  if (!outcome) return undefined;
  const error = (outcome.response as { error?: { code: number; data?: Record<string, unknown> } }).error;
  if (error?.code !== JsonRpcErrorCode.ResourceNotFound) return outcome;
  const detail = typeof error.data?.detail === 'string' ? `: ${error.data.detail}` : '';
  const exception = new McpException(JsonRpcErrorCode.InvalidParams, `Resource not found${detail}`, undefined, {
    uri: error.data?.uri,
  });
  return failure(outcome.response.id, exception, outcome.method);
}
