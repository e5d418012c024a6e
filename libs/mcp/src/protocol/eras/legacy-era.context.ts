import { randomUUID } from 'node:crypto';
import type { McpClientRequestOptions } from '../../context/client-request.types.js';
import type { McpRoundState } from '../../context/mcp-request-context.js';
import { McpClientUnreachableError, type McpClientCapabilityError } from '../../errors/client-request.errors.js';
import type { McpClientRequests } from '../../client-requests/mcp-client-requests.js';
import type { McpProtocolVersion } from '../../mcp.constants.js';
import { passesLogLevel, type McpLogLevel } from '../../model/log-level.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import type { McpInputRequest } from '../modern/input-round.js';
import type { EraRequest, McpEraContext } from '../era-context.js';

/**
 * The 2025 era inside one request: the session's negotiated version, capabilities and log level
 * (`logging/setLevel`; everything until set), and questions to the client pushed as requests on
 * this request's channel (the POST's SSE answer, the socket, the session's GET stream), answered
 * there. The handler runs once, so its round state is a plain map.
 */
export class LegacyEraContext implements McpEraContext {
  // Fields declared only and assigned in the constructor (no parameter properties or
  // initializers): made once per request, a context then runs no field initializer.
  declare readonly era: 'legacy';
  declare readonly askChannel: 'request';
  declare readonly protocolVersion: McpProtocolVersion;
  declare private readonly dispatch: McpDispatchContext;
  declare private readonly clientRequests: McpClientRequests;
  declare private values?: Map<string, unknown>;

  constructor(protocolVersion: McpProtocolVersion, dispatch: McpDispatchContext, clientRequests: McpClientRequests) {
    this.era = 'legacy';
    this.askChannel = 'request';
    this.protocolVersion = protocolVersion;
    this.dispatch = dispatch;
    this.clientRequests = clientRequests;
  }

  get clientCapabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.dispatch.session?.clientCapabilities;
  }

  get roundState(): McpRoundState {
    const values = (this.values ??= new Map<string, unknown>());
    return {
      get: <T>(key: string) => values.get(key) as T | undefined,
      set: (key: string, value: unknown) => (value === undefined ? values.delete(key) : values.set(key, value)),
    };
  }

  logs(level: McpLogLevel): boolean {
    return passesLogLevel(level, this.dispatch.session?.logLevel);
  }

  /** A missing capability is the handler's own error here (it may fall back). */
  capabilityError(error: McpClientCapabilityError): Error {
    return error;
  }

  elicitation(params: Record<string, unknown>, url: boolean): Record<string, unknown> {
    return legacyElicitation(params, url);
  }

  ask(
    method: McpInputRequest['method'],
    params: Record<string, unknown>,
    options: McpClientRequestOptions | undefined,
    request: EraRequest,
  ): Promise<Record<string, unknown>> {
    const session = this.dispatch.session;
    const send = this.dispatch.sendRelated;
    if (!session || !send) {
      throw new McpClientUnreachableError(method, 'the request has no session with a channel to the client');
    }
    if (request.completed) {
      throw new McpClientUnreachableError(method, `request ${String(request.requestId)} already has its response`);
    }
    return this.clientRequests.request(session.id, method, params, {
      send,
      signal: request.signal,
      timeoutMs: options?.timeoutMs,
      principal: this.dispatch.auth,
    });
  }
}

/** URL mode carries an `elicitationId` the client reports completion with (2025-11-25), in a request as in a task. */
export function legacyElicitation(params: Record<string, unknown>, url: boolean): Record<string, unknown> {
  return url ? { ...params, elicitationId: params.elicitationId ?? randomUUID() } : params;
}
