import { Injectable } from '@nestjs/common';
import type { McpException } from '../../errors/mcp.exception.js';
import { errorResponse, isValidId } from '../../model/json-rpc.js';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpTelemetry, type McpRefusalReason } from '../../telemetry/mcp-telemetry.js';
import { McpErrorMapper } from '../mcp-error.mapper.js';
import type { McpAnswer } from '../mcp-answer.js';
import type { Inbound, InboundFrame } from '../inbound/inbound.js';
import { McpInboundClassifier } from '../inbound/inbound-classifier.js';
import { McpDispatcher } from './mcp.dispatcher.js';
import { countRefusal, refusalReasonOf } from './refusals.js';

/** Who sent a message a transport refuses before it reaches the dispatcher. */
export interface McpRefusedFrom {
  readonly transport: McpTransportKind;
  /** The transport's request (HTTP request, upgrade request), for the network attributes. */
  readonly request?: unknown;
  readonly sessionId?: string;
  readonly principal?: McpPrincipal;
  /** When the message arrived (`receivedNow()`). */
  readonly receivedAt?: number;
}

/**
 * The core's one inbound port, what every transport hands a parsed message to: it classifies the
 * message once (its era, a modern request's envelope and headers), dispatches it, maps what
 * failed outside a handler, and refuses what a transport turns away before dispatch (counted
 * with its reason, with the SERVER span every answered request gets). A transport frames bytes,
 * admits connections and writes what it is given.
 */
@Injectable()
export class McpInboundPort {
  /**
   * When a message arrives: the start of its span and duration (undefined without telemetry).
   * (`receivedNow`, `classify` and `dispatch` are the services' own methods, bound once: a call
   * through the port is no call of its own on the path every message takes.)
   */
  readonly receivedNow: () => number | undefined;
  /** Classifies `payload` once, for the eras served where it arrived (and, over HTTP, its headers). */
  readonly classify: (payload: unknown, frame: InboundFrame) => Inbound;
  /** Serves a classified message (see `McpDispatcher.dispatch`). */
  readonly dispatch: (
    inbound: Inbound,
    ctx: McpDispatchContext,
    prepare?: () => Promise<void>,
  ) => Promise<McpAnswer | undefined>;

  constructor(
    classifier: McpInboundClassifier,
    dispatcher: McpDispatcher,
    private readonly errors: McpErrorMapper,
    private readonly telemetry: McpTelemetry,
  ) {
    this.receivedNow = telemetry.receivedNow.bind(telemetry);
    this.classify = classifier.classify.bind(classifier);
    this.dispatch = dispatcher.dispatch.bind(dispatcher);
  }

  /** What failed outside a handler (a session lookup, a backend down), as the exception to answer. */
  failed(error: unknown, where: string): McpException {
    return this.errors.toException(error, where);
  }

  /**
   * Counts what a transport refused before a message could be read (a body too large, a
   * foreign origin, a method the endpoint does not take), when it is a refusal.
   */
  refused(exception: McpException, transport: McpTransportKind, request: unknown): void {
    countRefusal(this.telemetry, exception, transport, request);
  }

  /**
   * The answer to a message refused before dispatch, counted as a refusal (`reason` when the
   * exception's class does not say why). A refused request (`request` names its method) gets its
   * SERVER span with the error, as every request the server answers does.
   */
  refuse(
    id: unknown,
    exception: McpException,
    from: McpRefusedFrom,
    reason?: McpRefusalReason,
    request?: { readonly method: unknown; readonly params?: unknown },
  ): string {
    const error = exception.toJsonRpcError();
    countRefusal(this.telemetry, exception, from.transport, from.request, reason ?? refusalReasonOf(exception));
    if (typeof request?.method === 'string') {
      this.telemetry
        .startOperation({
          method: request.method,
          id: isValidId(id) ? id : undefined,
          params: request.params,
          transport: from.transport,
          request: from.request,
          sessionId: from.sessionId,
          principal: from.principal,
          receivedAt: from.receivedAt,
        })
        .end({ error });
    }
    return JSON.stringify(errorResponse(isValidId(id) ? id : null, error));
  }
}
