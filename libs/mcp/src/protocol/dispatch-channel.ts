import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import type { McpClientRequestOptions } from '../context/client-request.types.js';
import type { ClientAsk, RequestChannel } from '../context/request-channel.js';
import type { McpLogLevel } from '../model/log-level.js';
import type { JsonRpcRequest } from '../model/json-rpc.js';
import { progressTokenOf } from '../model/progress-token.js';
import { McpClientCapabilityError } from '../errors/client-request.errors.js';
import type { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { McpLogger } from '../logging/mcp-logger.js';
import { ATTR_ASK_CHANNEL, describeAskFailure } from './ask-failure.js';
import type { EraRequest, McpEraContext } from './era-context.js';
import { LazyAbortController } from './inflight-requests.js';

const logger = new McpLogger('McpRequest');

/** How a request reaches its own channel. */
export interface RequestChannelInit {
  readonly rpc: JsonRpcRequest;
  readonly dispatch: McpDispatchContext;
  readonly era: McpEraContext;
  readonly controller?: LazyAbortController;
  readonly telemetry?: McpTelemetry;
}

/**
 * The request's own channel: related messages on the request's stream (`dispatch.sendRelated`),
 * questions as its era asks them (a pushed request, or a multi round-trip round), the request's
 * cancellation. A missing client capability becomes what the era says (`-32021` in the modern era).
 */
export class DispatchChannel implements RequestChannel, EraRequest {
  // Fields declared only and assigned in the constructor (no parameter properties or
  // initializers): made once per request, a context then runs no field initializer.
  declare private readonly init: RequestChannelInit;
  declare private readonly meta: Record<string, unknown> | undefined;
  /** The request's cancellation, and whether its response is decided (`decided`). */
  declare private readonly controller: LazyAbortController;
  declare private lastProgress: number;

  /** @param meta the request's `_meta` (its progress token), as its facts read it. */
  constructor(init: RequestChannelInit, meta: Record<string, unknown> | undefined) {
    this.init = init;
    this.meta = meta;
    this.controller = init.controller ?? new LazyAbortController();
    this.lastProgress = -Infinity;
  }

  get requestId() {
    return this.init.rpc.id;
  }
  get method() {
    return this.init.rpc.method;
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get completed(): boolean {
    return this.controller.decided === true;
  }

  complete(): void {
    this.controller.decided = true;
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    this.sendRelated(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = progressTokenOf(this.meta);
    // Only when the client asked (a progress token), and strictly increasing (MCP MUST).
    if (progressToken === undefined || !(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    this.sendRelated({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: {
        progressToken,
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      },
    });
  }

  async log(level: McpLogLevel, data: unknown, loggerName?: string): Promise<void> {
    if (!this.init.era.logs(level)) return;
    this.sendRelated({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level, ...(loggerName !== undefined ? { logger: loggerName } : {}), data },
    });
  }

  /**
   * Asks the client through the era: a request pushed on a channel of the session (legacy), or a
   * multi round-trip round (modern); inside a CLIENT span when tracing.
   */
  async ask(question: ClientAsk, options?: McpClientRequestOptions): Promise<Record<string, unknown>> {
    const era = this.init.era;
    try {
      question.check();
    } catch (error) {
      throw error instanceof McpClientCapabilityError ? era.capabilityError(error) : error;
    }
    const { method } = question;
    const params =
      question.method === 'elicitation/create' ? era.elicitation(question.params, question.url) : question.params;
    const ask = () => era.ask(method, params, options, this);
    const telemetry = this.init.telemetry;
    if (!telemetry?.tracing) return ask();
    const attributes = { [ATTR_ASK_CHANNEL]: era.askChannel };
    return telemetry.clientRequest(
      method,
      { ...attributes, ...telemetry.sessionAttributes(this.init.dispatch.session?.id) },
      ask,
      describeAskFailure,
    );
  }

  /**
   * Serializes and sends a related message. Serializing here, inside the handler's await,
   * makes a value JSON cannot hold (a BigInt, a cycle) the handler's own error.
   */
  private sendRelated(message: object): void {
    if (this.controller.decided) {
      logger.debug(`Dropped a related message: request ${String(this.requestId)} already has its response`);
      return;
    }
    const json = JSON.stringify(message);
    if (!this.init.dispatch.sendRelated?.(json)) {
      logger.debug(`Dropped a related message of request ${String(this.requestId)}: no channel to the client`);
    }
  }
}
