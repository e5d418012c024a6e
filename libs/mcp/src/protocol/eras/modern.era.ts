import { Injectable } from '@nestjs/common';
import { McpMethodNotFoundException } from '../../errors/mcp-protocol.exceptions.js';
import { principalDigest } from '../../model/mcp-principal.js';
import { McpMethods } from '../handlers/mcp-methods.js';
import type { InboundModernRequest } from '../inbound/inbound.js';
import type { LazyAbortController } from '../inflight-requests.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { McpModernResults } from '../modern/modern-results.js';
import { McpMrtr, MRTR_METHODS } from '../modern/mrtr.service.js';
import { RequestContext } from '../request-context.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { ModernEraContext } from './modern-era.context.js';

/** The result a round that needs input answers with, in place of the handler's. */
const INPUT_REQUIRED: unique symbol = Symbol('input-required');

/**
 * MCP 2026-07-28, served statelessly: every request carries its own envelope (checked when it
 * was classified), results carry `resultType`, the server's identity and caching hints, and a
 * handler that asks the client answers `input_required` (multi round-trip requests).
 */
@Injectable()
export class ModernEra {
  constructor(
    private readonly methods: McpMethods,
    private readonly mrtr: McpMrtr,
    private readonly results: McpModernResults,
    private readonly telemetry: McpTelemetry,
  ) {}

  /** Serves one request; throws what answers it otherwise. */
  async serve(
    { request, envelope }: InboundModernRequest,
    ctx: McpDispatchContext,
    controller: LazyAbortController,
  ): Promise<Record<string, unknown>> {
    const method = this.methods.find('modern', request.method);
    // The modern era answers an unknown method 404 over HTTP (MCP 2026-07-28).
    if (!method) throw new McpMethodNotFoundException(request.method, { status: 404 });
    const params = request.params ?? {};
    // The request state of a multi round-trip request is bound to the principal (resource-server mode).
    const principal = principalDigest(ctx.auth);
    const opened = MRTR_METHODS.has(request.method) ? this.mrtr.openRound(request, params, principal) : undefined;
    const round = opened instanceof Promise ? await opened : opened;
    const context = new RequestContext({
      rpc: request,
      params,
      dispatch: ctx,
      controller,
      telemetry: this.telemetry,
      era: new ModernEraContext(envelope, round),
    });
    const result = round
      ? await round.race(method(params, context, ctx), INPUT_REQUIRED)
      : await method(params, context, ctx);
    if (result === INPUT_REQUIRED) {
      // The handler waits on its asks: its request has its answer now, and what the handler sends
      // from now on is dropped. Otherwise the handler is done, and the response is decided as the
      // request settles (`McpRequestRun`).
      context.complete();
      return this.mrtr.inputRequired(round!, request, params, principal);
    }
    const retried = params.inputResponses !== undefined || params.requestState !== undefined;
    return this.results.complete(request.method, result, retried);
  }
}
