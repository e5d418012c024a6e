import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import { progressTokenOf } from '../model/progress-token.js';
import type { JsonRpcRequest } from '../model/json-rpc.js';
import type { McpRequestContext, McpRoundState } from '../context/mcp-request-context.js';
import type { McpLogLevel } from '../model/log-level.js';
import { assertCanElicit, assertCanListRoots, assertCanSample } from '../client-requests/client-capabilities.js';
import type {
  McpClientRequestOptions,
  McpElicitFormParams,
  McpElicitResult,
  McpElicitUrlParams,
  McpRoot,
  McpSamplingParams,
  McpSamplingResult,
} from '../context/client-request.types.js';
import { McpClientCapabilityError } from '../errors/client-request.errors.js';
import { LazyAbortController } from './inflight-requests.js';
import type { McpInputRequest } from './modern/input-round.js';
import type { EraRequest, McpEraContext } from './era-context.js';
import type { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { ATTR_ASK_CHANNEL, describeAskFailure } from './ask-failure.js';
import { McpLogger } from '../logging/mcp-logger.js';

const logger = new McpLogger('McpRequest');

/** How a request reaches its context. */
export interface RequestContextInit {
  readonly rpc: JsonRpcRequest;
  readonly params: Record<string, unknown>;
  readonly dispatch: McpDispatchContext;
  /** What the request's era decides: capabilities, log level, how the client is asked. */
  readonly era: McpEraContext;
  readonly controller?: LazyAbortController;
  /** Spans for the requests the handler sends the client. */
  readonly telemetry?: McpTelemetry;
}

type Bound = 'sendNotification' | 'reportProgress' | 'log' | 'elicit' | 'sample' | 'listRoots';

/**
 * The context of one request, handed to its handler. Its methods are bound on first access
 * (handlers may destructure them), so a request that never reports progress or asks the client
 * pays for none of it. What differs between the protocol eras (asking the client is a pushed
 * request in the legacy era and an MRTR round in the modern one) is its era context's: handler
 * code is the same for both.
 */
export class RequestContext implements McpRequestContext, EraRequest {
  readonly meta?: Record<string, unknown>;
  private readonly rpc: JsonRpcRequest;
  private readonly dispatch: McpDispatchContext;
  private readonly controller: LazyAbortController;
  private readonly eraContext: McpEraContext;
  private readonly telemetry?: McpTelemetry;
  private done = false;
  private lastProgress = -Infinity;
  private bound?: Partial<Record<Bound, unknown>>;

  constructor(init: RequestContextInit) {
    this.rpc = init.rpc;
    this.dispatch = init.dispatch;
    this.eraContext = init.era;
    this.telemetry = init.telemetry;
    this.controller = init.controller ?? new LazyAbortController();
    const meta = init.params._meta;
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) this.meta = meta as Record<string, unknown>;
  }

  get requestId() {
    return this.rpc.id;
  }
  get method() {
    return this.rpc.method;
  }
  get era() {
    return this.eraContext.era;
  }
  get protocolVersion() {
    return this.eraContext.protocolVersion;
  }
  get sessionId() {
    return this.dispatch.session?.id;
  }
  get session() {
    return this.dispatch.session;
  }
  get transport() {
    return this.dispatch.transport;
  }
  get request() {
    return this.dispatch.request;
  }
  get auth() {
    return this.dispatch.auth;
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get clientCapabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.eraContext.clientCapabilities;
  }
  get roundState(): McpRoundState {
    return this.eraContext.roundState;
  }
  /** True once the response is decided. */
  get completed(): boolean {
    return this.done;
  }

  /** The response is decided: related messages sent from now on are dropped. */
  complete(): void {
    this.done = true;
  }

  get sendNotification(): McpRequestContext['sendNotification'] {
    return this.bind('sendNotification', async (method: string, params?: Record<string, unknown>) => {
      this.sendRelated(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    });
  }

  get reportProgress(): McpRequestContext['reportProgress'] {
    return this.bind('reportProgress', async (progress: number, total?: number, message?: string) => {
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
    });
  }

  get log(): McpRequestContext['log'] {
    return this.bind('log', async (level: McpLogLevel, data: unknown, loggerName?: string) => {
      if (!this.eraContext.logs(level)) return;
      this.sendRelated({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level, ...(loggerName !== undefined ? { logger: loggerName } : {}), data },
      });
    });
  }

  get elicit(): McpRequestContext['elicit'] {
    return this.bind(
      'elicit',
      async (params: McpElicitFormParams | McpElicitUrlParams, options?: McpClientRequestOptions) => {
        const url = params.mode === 'url';
        this.assertCapability(() => assertCanElicit(this.clientCapabilities, url ? 'url' : 'form'));
        const wire = this.eraContext.elicitation(params as unknown as Record<string, unknown>, url);
        return (await this.ask('elicitation/create', wire, options)) as McpElicitResult;
      },
    );
  }

  get sample(): McpRequestContext['sample'] {
    return this.bind('sample', async (params: McpSamplingParams, options?: McpClientRequestOptions) => {
      this.assertCapability(() => assertCanSample(this.clientCapabilities, params));
      return (await this.ask('sampling/createMessage', params, options)) as McpSamplingResult;
    });
  }

  get listRoots(): McpRequestContext['listRoots'] {
    return this.bind('listRoots', async (options?: McpClientRequestOptions) => {
      this.assertCapability(() => assertCanListRoots(this.clientCapabilities));
      const result = await this.ask('roots/list', {}, options);
      return { roots: Array.isArray(result.roots) ? (result.roots as McpRoot[]) : [] };
    });
  }

  private assertCapability(check: () => void): void {
    try {
      check();
    } catch (error) {
      throw error instanceof McpClientCapabilityError ? this.eraContext.capabilityError(error) : error;
    }
  }

  /**
   * Serializes and sends a related message. Serializing here, inside the handler's await,
   * makes a value JSON cannot hold (a BigInt, a cycle) the handler's own error.
   */
  private sendRelated(message: object): void {
    if (this.done) {
      logger.debug(`Dropped a related message: request ${String(this.rpc.id)} already has its response`);
      return;
    }
    const json = JSON.stringify(message);
    if (!this.dispatch.sendRelated?.(json)) {
      logger.debug(`Dropped a related message of request ${String(this.rpc.id)}: no channel to the client`);
    }
  }

  /**
   * Asks the client through the era: a request pushed on a channel of the session (legacy), or a
   * multi round-trip round (modern); inside a CLIENT span when tracing.
   */
  private ask(method: McpInputRequest['method'], params: Record<string, unknown>, options?: McpClientRequestOptions) {
    const ask = () => this.eraContext.ask(method, params, options, this);
    if (!this.telemetry?.tracing) return ask();
    const sessionId = this.dispatch.session?.id;
    const attributes = { [ATTR_ASK_CHANNEL]: this.eraContext.askChannel };
    return this.telemetry.clientRequest(
      method,
      { ...attributes, ...this.telemetry.sessionAttributes(sessionId) },
      ask,
      describeAskFailure,
    );
  }

  private bind<T>(name: Bound, fn: T): T {
    const bound = (this.bound ??= {});
    return (bound[name] ??= fn) as T;
  }
}
