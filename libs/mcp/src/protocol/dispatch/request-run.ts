import { Injectable } from '@nestjs/common';
import { McpInvalidRequestException } from '../../errors/mcp-protocol.exceptions.js';
import type { McpException } from '../../errors/mcp.exception.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { McpServerStats } from '../../session/mcp-server-stats.js';
import {
  errorResponse,
  successResponse,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../model/json-rpc.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpErrorMapper } from '../mcp-error.mapper.js';
import { LazyAbortController, McpInflightRequests, McpRequestCancelledError } from '../inflight-requests.js';
import { McpTelemetry, type McpRefusalReason } from '../../telemetry/mcp-telemetry.js';
import { countRefusal, refusalReasonOf } from './refusals.js';

/** A response before serialization, with the HTTP status it rides on. */
export interface Outcome {
  readonly response: JsonRpcResponse;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The method it answers, for the log line of a serialization failure. */
  readonly method: string;
}

/** The outcome of a request refused with `exception`. */
export const failure = (id: JsonRpcId | null, exception: McpException, method: string): Outcome => ({
  response: errorResponse(id, exception.toJsonRpcError()),
  status: exception.httpStatus ?? 200,
  headers: exception.httpHeaders,
  method,
});

/**
 * What serves a request in its era (`LegacyEra`, `ModernEra`), from `subject`: what the era reads
 * the request from (the JSON-RPC request, or the classified modern message).
 */
export interface EraServer<S> {
  serve(subject: S, ctx: McpDispatchContext, controller: LazyAbortController): Promise<Record<string, unknown>>;
}

/**
 * What every request gets while its era serves it, whichever era and transport: counting, its
 * session kept from idling, cancellation tracking (a duplicate in-flight id is refused), the
 * transport's cancellation linked in, the error mapper, refusals counted, and no answer at all
 * once cancelled.
 */
@Injectable()
export class McpRequestRun {
  constructor(
    private readonly stats: McpServerStats,
    private readonly sessions: McpSessionManager,
    private readonly inflight: McpInflightRequests,
    private readonly errors: McpErrorMapper,
    private readonly telemetry: McpTelemetry,
  ) {}

  /** Counts a request refused before or as it ran (`nest_mcp.requests.refused`), once. */
  refused(exception: McpException, ctx: McpDispatchContext, reason?: McpRefusalReason): void {
    countRefusal(this.telemetry, exception, ctx.transport, ctx.request, reason ?? refusalReasonOf(exception));
  }

  /** Serves `request` through `era.serve(subject, ...)`, with all of the above. */
  async run<S>(
    request: JsonRpcRequest,
    ctx: McpDispatchContext,
    era: EraServer<S>,
    subject: S,
  ): Promise<Outcome | undefined> {
    this.stats.recordRequest();
    const controller = new LazyAbortController();
    // initialize cannot be cancelled; without a scope a cancellation could not be attributed.
    const scope = ctx.connectionId ?? ctx.session?.id;
    let tracked = false;
    // A session with a request in flight is not idle, however long the request waits.
    const busy =
      ctx.session && request.method !== 'initialize'
        ? this.sessions.requestStarted(ctx.session.id, ctx.request)
        : undefined;
    try {
      if (scope !== undefined && request.method !== 'initialize') {
        tracked = this.inflight.start(scope, request.id, controller);
        if (!tracked) {
          throw new McpInvalidRequestException(
            `Request id ${JSON.stringify(request.id)} is already in flight here; use a fresh id`,
          );
        }
      }
      // The transport can no longer deliver the answer: the request is cancelled (never
      // answered, never logged as a failure).
      ctx.onDropped?.(() => controller.abort(new McpRequestCancelledError('The answer can no longer be delivered')));
      const result = await era.serve(subject, ctx, controller);
      if (controller.reason instanceof McpRequestCancelledError) return undefined;
      return { response: successResponse(request.id, result), status: 200, method: request.method };
    } catch (error) {
      // Cancelled, by the transport or by the work itself (a listen its client cancelled): no answer.
      if (controller.reason instanceof McpRequestCancelledError || error instanceof McpRequestCancelledError) {
        return undefined;
      }
      const exception = this.errors.toException(error, request.method);
      // Refused as it ran: a scope short, a rate limit, a cap (sessions, listens, tasks).
      this.refused(exception, ctx);
      return failure(request.id, exception, request.method);
    } finally {
      // Its response is decided: what its handler sends from now on is dropped.
      controller.decided = true;
      if (tracked) this.inflight.finish(scope!, request.id, controller);
      busy?.();
    }
  }
}
