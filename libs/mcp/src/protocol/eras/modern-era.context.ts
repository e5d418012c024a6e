import type { McpClientRequestOptions } from '../../context/client-request.types.js';
import type { McpRoundState } from '../../context/mcp-request-context.js';
import { McpClientUnreachableError, type McpClientCapabilityError } from '../../errors/client-request.errors.js';
import { McpMissingClientCapabilityException } from '../../errors/mcp-modern.exceptions.js';
import type { McpModernProtocolVersion } from '../../mcp.constants.js';
import { passesLogLevel, type McpLogLevel } from '../../model/log-level.js';
import type { McpModernEnvelope } from '../inbound/modern-envelope.js';
import type { InputRound, McpInputRequest } from '../modern/input-round.js';
import type { EraRequest, McpEraContext } from '../era-context.js';

/**
 * MCP 2026-07-28 inside one request: the request's own `_meta` (version, client capabilities,
 * log level: no log messages without one), and questions to the client asked as a multi
 * round-trip round (the request answers `input_required`; the handler runs again on the retry,
 * and what it keeps in its round state comes back signed in `requestState`).
 */
export class ModernEraContext implements McpEraContext {
  // Fields declared only and assigned in the constructor (no parameter properties or
  // initializers): made once per request, a context then runs no field initializer.
  declare readonly era: 'modern';
  declare readonly askChannel: 'mrtr';
  declare private readonly envelope: McpModernEnvelope;
  /** Only methods that may answer `input_required` have one. */
  declare private readonly round: InputRound | undefined;
  /** The round state of a method that cannot ask the client: this request's alone. */
  declare private local?: Record<string, unknown>;

  constructor(envelope: McpModernEnvelope, round: InputRound | undefined) {
    this.era = 'modern';
    this.askChannel = 'mrtr';
    this.envelope = envelope;
    this.round = round;
  }

  get protocolVersion(): McpModernProtocolVersion {
    return this.envelope.protocolVersion as McpModernProtocolVersion;
  }

  get clientCapabilities(): Readonly<Record<string, unknown>> {
    return this.envelope.clientCapabilities;
  }

  get roundState(): McpRoundState {
    const state = this.round?.state ?? (this.local ??= {});
    return {
      get: <T>(key: string) => state[key] as T | undefined,
      set: (key: string, value: unknown) => {
        if (value === undefined) delete state[key];
        else state[key] = value;
      },
    };
  }

  logs(level: McpLogLevel): boolean {
    const minimum = this.envelope.logLevel;
    return minimum !== undefined && passesLogLevel(level, minimum);
  }

  /** A missing capability answers the request with `-32021`, naming it. */
  capabilityError(error: McpClientCapabilityError): Error {
    return new McpMissingClientCapabilityException(capabilityObject(error.capability));
  }

  /** The modern era dropped `elicitationId`: an out-of-band outcome is learnt by the retry. */
  elicitation(params: Record<string, unknown>): Record<string, unknown> {
    return params;
  }

  ask(
    method: McpInputRequest['method'],
    params: Record<string, unknown>,
    options: McpClientRequestOptions | undefined,
    request: EraRequest,
  ): Promise<Record<string, unknown>> {
    if (!this.round) throw new McpClientUnreachableError(method, `${request.method} cannot ask the client for input`);
    return this.round.ask(method, params, options?.key);
  }
}

/** `'sampling.tools'` → `{ sampling: { tools: {} } }`, the shape `-32021` reports. */
function capabilityObject(path: string): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<Record<string, unknown>>((inner, name) => ({ [name]: inner }), {});
}
