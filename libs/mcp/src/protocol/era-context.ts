import type { McpClientRequestOptions } from '../context/client-request.types.js';
import type { McpRoundState } from '../context/mcp-request-context.js';
import type { McpClientCapabilityError } from '../errors/client-request.errors.js';
import type { McpAnyProtocolVersion } from '../mcp.constants.js';
import type { JsonRpcId } from '../model/json-rpc.js';
import type { McpLogLevel } from '../model/log-level.js';
import type { McpEra } from './inbound/inbound.js';
import type { McpInputRequest } from './modern/input-round.js';

/** What an era needs of the request whose context it serves. */
export interface EraRequest {
  readonly requestId: JsonRpcId;
  readonly method: string;
  readonly signal: AbortSignal;
  /** True once the response is decided: nothing related may be sent any more. */
  readonly completed: boolean;
}

/**
 * Everything that differs between the two protocol eras inside one request, behind one object:
 * the request context (`RequestContext`) delegates to it instead of asking which era it is in.
 * - legacy (2025): the session's capabilities and log level, questions to the client pushed on
 *   the request's channel;
 * - modern (2026-07-28): the request's own `_meta`, questions asked as a multi round-trip round.
 */
export interface McpEraContext {
  readonly era: McpEra;
  readonly protocolVersion: McpAnyProtocolVersion;
  /** The capabilities the client declared: in its session's `initialize` (legacy), or in this request's `_meta` (modern). */
  readonly clientCapabilities?: Readonly<Record<string, unknown>>;
  /** Values the handler keeps across the rounds of a multi round-trip request. */
  readonly roundState: McpRoundState;
  /** How this era asks the client, as a CLIENT span names it: a request pushed on a channel, or a multi round-trip round. */
  readonly askChannel: 'request' | 'mrtr';
  /** Whether a `notifications/message` at `level` reaches the client. */
  logs(level: McpLogLevel): boolean;
  /** What a missing client capability becomes in this era. */
  capabilityError(error: McpClientCapabilityError): Error;
  /** The params of `elicitation/create` as this era writes them. */
  elicitation(params: Record<string, unknown>, url: boolean): Record<string, unknown>;
  /** Asks the client, and resolves with its answer. */
  ask(
    method: McpInputRequest['method'],
    params: Record<string, unknown>,
    options: McpClientRequestOptions | undefined,
    request: EraRequest,
  ): Promise<Record<string, unknown>>;
}
