import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { LocalInstanceMessaging } from '../../backend/in-memory/local-instance-messaging.js';
import { MCP_INSTANCE_MESSAGING } from '../../backend/mcp-backend.tokens.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import type { JsonRpcRequest } from '../json-rpc.js';
import { InputRound } from './input-round.js';
import { digestParams, RequestStateCodec } from './request-state.codec.js';

/** The methods that may answer `input_required` (MCP 2026-07-28 MRTR). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Multi round-trip requests: opens each round from the retry's `inputResponses` and verified
 * `requestState`, and seals the state of a round that needs input. Keys come from
 * `requestStateKeys` (first signs, all verify); without any, a random key is made at startup,
 * which only one instance can verify: fine for one process, a warning with a shared backend.
 */
@Injectable()
export class McpMrtr {
  private readonly codec: RequestStateCodec;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_INSTANCE_MESSAGING) messaging: McpInstanceMessaging,
  ) {
    let keys = options.requestStateKeys;
    if (!keys || keys.length === 0) {
      keys = [randomBytes(32)];
      if (!(messaging instanceof LocalInstanceMessaging)) this.warnUnsharedKey();
    }
    this.codec = new RequestStateCodec(keys);
  }

  private warnUnsharedKey(): void {
    new Logger('McpMrtr').warn(
      'No requestStateKeys configured: a random key signs MRTR requestState, so only this instance can continue a multi round-trip request. Configure a shared key list when running several instances.',
    );
  }

  /** The round of a request: its answers so far, and the state its handler kept. */
  openRound(request: JsonRpcRequest, params: Record<string, unknown>, principal?: string): InputRound {
    const responses = params.inputResponses;
    if (responses !== undefined && !isObject(responses)) {
      throw new McpInvalidParamsException("'inputResponses' must be an object of results by input key");
    }
    if (params.requestState === undefined) return new InputRound({ ...responses }, {});
    const state = this.codec.open(params.requestState, {
      method: request.method,
      digest: digestParams(params),
      principal,
      now: Date.now(),
    });
    // The signed answers of earlier rounds win: the handler already acted on them, and a retry
    // must not swap one for another under the same key.
    return new InputRound({ ...responses, ...state.answers }, { ...state.state });
  }

  /** The `InputRequiredResult` of a round that closed with asks. */
  inputRequired(
    round: InputRound,
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    principal?: string,
  ): Record<string, unknown> {
    const requestState = this.codec.seal({
      method: request.method,
      digest: digestParams(params),
      ...(principal !== undefined ? { principal } : {}),
      expiresAt: Date.now() + this.options.requestStateTtlMs,
      answers: round.answersToKeep(),
      state: round.state,
    });
    return { resultType: 'input_required', inputRequests: round.inputRequests(), requestState };
  }
}
