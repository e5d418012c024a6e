import { Injectable } from '@nestjs/common';
import { McpClientRequests } from '../../client-requests/mcp-client-requests.js';
import {
  McpInvalidParamsException,
  McpInvalidRequestException,
  McpMethodNotFoundException,
} from '../../errors/mcp-protocol.exceptions.js';
import { FALLBACK_HEADER_PROTOCOL_VERSION, type McpProtocolVersion } from '../../mcp.constants.js';
import { hasMalformedParams, type JsonRpcRequest } from '../../model/json-rpc.js';
import { McpMethods } from '../handlers/mcp-methods.js';
import type { LazyAbortController } from '../inflight-requests.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { RequestContext } from '../request-context.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { LegacyEraContext } from './legacy-era.context.js';

/** Methods that work before `initialize` on transports that have sessions. */
const PRE_INITIALIZE_METHODS = new Set(['initialize', 'ping']);

/**
 * The 2025 era (2025-11-25, 2025-06-18, 2025-03-26): `initialize` creates a session, and every
 * other request of a transport with sessions needs one; the negotiated version governs.
 */
@Injectable()
export class LegacyEra {
  constructor(
    private readonly methods: McpMethods,
    private readonly clientRequests: McpClientRequests,
    private readonly telemetry: McpTelemetry,
  ) {}

  /**
   * The version that governs a legacy message: negotiated, else the header's, else 2025-03-26
   * (docs/decisions/0006-protocol-version-negotiation.md).
   */
  versionOf(ctx: McpDispatchContext): McpProtocolVersion {
    return ctx.session?.protocolVersion ?? ctx.headerProtocolVersion ?? FALLBACK_HEADER_PROTOCOL_VERSION;
  }

  /** Serves one request; throws what answers it otherwise. */
  async serve(
    request: JsonRpcRequest,
    ctx: McpDispatchContext,
    controller: LazyAbortController,
  ): Promise<Record<string, unknown>> {
    const method = this.methods.find('legacy', request.method);
    if (!method) throw new McpMethodNotFoundException(request.method);
    if (ctx.sessionsEnabled && !ctx.session && !PRE_INITIALIZE_METHODS.has(request.method)) {
      throw new McpInvalidRequestException('Send initialize before any other request', 'Server not initialized');
    }
    if (hasMalformedParams(request)) throw new McpInvalidParamsException("The 'params' member must be an object");
    const params = request.params ?? {};
    const context = new RequestContext({
      rpc: request,
      params,
      dispatch: ctx,
      controller,
      telemetry: this.telemetry,
      era: new LegacyEraContext(this.versionOf(ctx), ctx, this.clientRequests),
    });
    // Not awaited here: the response is decided (what the handler sends later dropped) when the
    // request settles, by `McpRequestRun` (the controller's `decided`).
    return method(params, context, ctx);
  }
}
