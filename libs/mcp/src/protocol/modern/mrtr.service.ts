import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { InMemoryRequestStateNonces } from '../../backend/in-memory/in-memory-request-state-nonces.js';
import { LocalInstanceMessaging } from '../../backend/in-memory/local-instance-messaging.js';
import { MCP_INSTANCE_MESSAGING, MCP_REQUEST_STATE_NONCES } from '../../backend/mcp-backend.tokens.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import type { McpRequestStateNonces } from '../../backend/mcp-request-state-nonces.js';
import { McpInvalidRequestStateException } from '../../errors/mcp-modern.exceptions.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { toolError } from '../../results/tool-result.helpers.js';
import { argumentDepthError } from '../../schema/argument-depth.js';
import { JsonRpcErrorCode, type JsonRpcRequest } from '../../model/json-rpc.js';
import { InputRound } from './input-round.js';
import { McpModernResults } from './modern-results.js';
import { MAX_REQUEST_STATE_CHARS, RequestStateCodec, RequestStateTooLargeError } from './request-state.codec.js';
import { isObject } from '../../model/is-object.js';
import { McpLogger } from '../../logging/mcp-logger.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** The methods that may answer `input_required` (MCP 2026-07-28 MRTR). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);

/**
 * Multi round-trip requests: opens each round from the retry's verified `requestState` and the
 * `inputResponses` it asked for, and seals the state of a round that needs input.
 *
 * - Answers count only under a verified state, and only for the input keys that state names
 *   (the keys its round asked). `inputResponses` without a state are ignored: the handler asks
 *   again and gets a fresh `input_required`.
 * - Every state is single-use: it carries a random nonce, consumed in the backend
 *   (`McpRequestStateNonces`, shared by every instance) by the retry that presents it. Presented
 *   again, anywhere, it is refused with `-32602`, as the specification has a state that fails
 *   verification refused. A round that needs more input seals a new state.
 * - The state is bound to the method, a digest of the params, the principal and an expiry
 *   (`requestStateTtlMs`).
 *
 * Keys come from `requestStateKeys` (first signs, all verify); without any, a random key is made
 * at startup, which only one instance can verify: fine for one process, a warning with a shared
 * backend.
 */
@Injectable()
export class McpMrtr {
  private readonly codec: RequestStateCodec;
  private readonly nonces: McpRequestStateNonces;
  private readonly logger = new McpLogger('McpMrtr');

  constructor(
    @McpOptions('modern') private readonly options: McpOptionGroup<'modern'>,
    @Inject(MCP_INSTANCE_MESSAGING) messaging: McpInstanceMessaging,
    private readonly results: McpModernResults,
    @Optional() @Inject(MCP_REQUEST_STATE_NONCES) nonces?: McpRequestStateNonces | null,
  ) {
    const shared = !(messaging instanceof LocalInstanceMessaging);
    let keys = options.requestStateKeys;
    if (!keys || keys.length === 0) {
      keys = [randomBytes(32)];
      if (shared) this.warnUnsharedKey();
    }
    if (!nonces && shared) this.warnUnsharedNonces();
    this.nonces = nonces ?? new InMemoryRequestStateNonces();
    // The params object is one level above the arguments that maxArgumentDepth counts from.
    this.codec = new RequestStateCodec(keys, options.maxArgumentDepth + 1);
  }

  private warnUnsharedKey(): void {
    this.logger.warn(
      'No requestStateKeys configured: a random key signs MRTR requestState, so only this instance can continue a multi round-trip request. Configure a shared key list when running several instances.',
    );
  }

  private warnUnsharedNonces(): void {
    this.logger.warn(
      'The backend has no requestStateNonces: each instance remembers on its own which MRTR requestState were used, so a state used on one instance can be presented once more to each other one.',
    );
  }

  /**
   * The round of a request: the answers its verified state allows, and the state its handler
   * kept. One backend call (the nonce) for a retry that presents a state, none otherwise.
   */
  openRound(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    principal?: string,
  ): InputRound | Promise<InputRound> {
    const responses = params.inputResponses;
    if (responses !== undefined && !isObject(responses)) {
      throw new McpInvalidParamsException("'inputResponses' must be an object of results by input key");
    }
    // A first round (no state) is open at once: most calls never ask, and an await per call costs.
    if (params.requestState === undefined) return new InputRound({}, {});
    return this.continueRound(request, params, responses, principal);
  }

  /** A retry's round: its state verified, its nonce consumed, the answers it asked for taken. */
  private async continueRound(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    responses: Record<string, unknown> | undefined,
    principal: string | undefined,
  ): Promise<InputRound> {
    const state = this.codec.open(params.requestState, {
      method: request.method,
      params,
      principal,
      now: Date.now(),
    });
    const given = responses ?? {};
    const asked = Object.fromEntries(
      state.asked.filter((key) => Object.hasOwn(given, key)).map((key) => [key, given[key]]),
    );
    const tooDeep = argumentDepthError(asked, this.options.maxArgumentDepth);
    if (tooDeep !== undefined) throw new McpInvalidParamsException(`inputResponses: ${tooDeep}`);
    if (!(await this.nonces.consume(state.nonce, state.expiresAt))) {
      throw new McpInvalidRequestStateException('it was already used; start the request again');
    }
    // The signed answers of earlier rounds win: the handler already acted on them, and a retry
    // must not swap one for another under the same key.
    return new InputRound({ ...asked, ...state.answers }, { ...state.state });
  }

  /**
   * The result of a round that closed with asks: an `InputRequiredResult` with a new sealed
   * state. A state too large for a client to send back is never sealed: the call fails there,
   * with an `isError` result for `tools/call` and `-32603` for the others, naming the cause.
   */
  inputRequired(
    round: InputRound,
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    principal?: string,
  ): Record<string, unknown> {
    const inputRequests = round.inputRequests();
    let requestState: string;
    try {
      requestState = this.codec.seal({
        method: request.method,
        digest: this.codec.digest(params),
        ...(principal !== undefined ? { principal } : {}),
        expiresAt: Date.now() + this.options.requestStateTtlMs,
        asked: Object.keys(inputRequests),
        nonce: randomBytes(16).toString('base64url'),
        answers: round.answersToKeep(),
        state: round.state,
      });
    } catch (error) {
      if (!(error instanceof RequestStateTooLargeError)) throw error;
      return this.tooLarge(request, params, error);
    }
    return this.results.inputRequired({ resultType: 'input_required', inputRequests, requestState });
  }

  private tooLarge(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    error: RequestStateTooLargeError,
  ): Record<string, unknown> {
    const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : '';
    const detail = `The requestState of this round would be ${error.chars} characters, over the ${MAX_REQUEST_STATE_CHARS} a client may send back: keep less in ctx.roundState (the state also carries the answers of earlier rounds)`;
    this.logger.warn(`${request.method} ${name}: ${detail}`);
    if (request.method === 'tools/call') return this.results.complete(request.method, toolError(detail), true);
    throw new McpException(JsonRpcErrorCode.InternalError, 'Internal error', detail);
  }
}
