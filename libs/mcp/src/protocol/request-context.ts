import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { McpAnyProtocolVersion } from '../mcp.constants.js';
import type { McpDispatchContext } from './mcp-dispatch-context.js';
import type { JsonRpcRequest } from '../model/json-rpc.js';
import type { McpRequestContext, McpRoundState } from '../context/mcp-request-context.js';
import { passesLogLevel, type McpLogLevel } from '../model/log-level.js';
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
import { McpClientCapabilityError, McpClientUnreachableError } from '../errors/client-request.errors.js';
import type { McpClientRequests } from '../client-requests/mcp-client-requests.js';
import { McpMissingClientCapabilityException } from '../errors/mcp-modern.exceptions.js';
import { LazyAbortController } from './inflight-requests.js';
import type { McpModernEnvelope } from './modern/modern-envelope.js';
import type { InputRound, McpInputRequest } from './modern/input-round.js';

const logger = new Logger('McpRequest');

/** How a request reaches its context. */
export interface RequestContextInit {
  readonly rpc: JsonRpcRequest;
  readonly params: Record<string, unknown>;
  readonly dispatch: McpDispatchContext;
  readonly protocolVersion: McpAnyProtocolVersion;
  readonly controller?: LazyAbortController;
  /** Legacy era: where pushed server→client requests go. */
  readonly clientRequests?: McpClientRequests;
  /** Modern era: the request's envelope, and its MRTR round when the method may ask the client. */
  readonly modern?: { readonly envelope: McpModernEnvelope; readonly round?: InputRound };
}

type Bound = 'sendNotification' | 'reportProgress' | 'log' | 'elicit' | 'sample' | 'listRoots';

/**
 * The context of one request, handed to its handler. Its methods are bound on first access
 * (handlers may destructure them), so a request that never reports progress or asks the client
 * pays for none of it. Asking the client is a pushed request in the legacy era and an MRTR round
 * in the modern one; handler code is the same for both.
 */
export class RequestContext implements McpRequestContext {
  readonly meta?: Record<string, unknown>;
  readonly protocolVersion: McpAnyProtocolVersion;
  private readonly rpc: JsonRpcRequest;
  private readonly dispatch: McpDispatchContext;
  private readonly controller: LazyAbortController;
  private readonly clientRequests?: McpClientRequests;
  private readonly modern?: RequestContextInit['modern'];
  private completed = false;
  private lastProgress = -Infinity;
  private bound?: Partial<Record<Bound, unknown>>;
  private localState?: Map<string, unknown>;

  constructor(init: RequestContextInit) {
    this.rpc = init.rpc;
    this.dispatch = init.dispatch;
    this.protocolVersion = init.protocolVersion;
    this.controller = init.controller ?? new LazyAbortController();
    this.clientRequests = init.clientRequests;
    this.modern = init.modern;
    const meta = init.params._meta;
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) this.meta = meta as Record<string, unknown>;
  }

  get requestId() {
    return this.rpc.id;
  }
  get method() {
    return this.rpc.method;
  }
  get era(): 'legacy' | 'modern' {
    return this.modern ? 'modern' : 'legacy';
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
    return this.modern ? this.modern.envelope.clientCapabilities : this.dispatch.session?.clientCapabilities;
  }

  get roundState(): McpRoundState {
    const round = this.modern?.round;
    const values = round ? undefined : (this.localState ??= new Map<string, unknown>());
    return {
      get: <T>(key: string) => (round ? round.state[key] : values!.get(key)) as T | undefined,
      set: (key: string, value: unknown) => {
        if (round) {
          if (value === undefined) delete round.state[key];
          else round.state[key] = value;
        } else if (value === undefined) values!.delete(key);
        else values!.set(key, value);
      },
    };
  }

  /** The response is decided: related messages sent from now on are dropped. */
  complete(): void {
    this.completed = true;
  }

  get sendNotification(): McpRequestContext['sendNotification'] {
    return this.bind('sendNotification', async (method: string, params?: Record<string, unknown>) => {
      this.sendRelated(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    });
  }

  get reportProgress(): McpRequestContext['reportProgress'] {
    return this.bind('reportProgress', async (progress: number, total?: number, message?: string) => {
      const progressToken = this.meta?.progressToken;
      // Only when the client asked (a progress token), and strictly increasing (MCP MUST).
      if (!isProgressToken(progressToken) || !(progress > this.lastProgress)) return;
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
      if (!this.logs(level)) return;
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
        // The modern era dropped elicitationId: an out-of-band outcome is learnt by the retry.
        const wire = url && !this.modern ? { ...params, elicitationId: params.elicitationId ?? randomUUID() } : params;
        return (await this.ask(
          'elicitation/create',
          wire as unknown as Record<string, unknown>,
          options,
        )) as McpElicitResult;
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

  /** Legacy: the session's `logging/setLevel` (everything until set). Modern: `_meta` logLevel, nothing without it. */
  private logs(level: McpLogLevel): boolean {
    if (!this.modern) return passesLogLevel(level, this.dispatch.session?.logLevel);
    const minimum = this.modern.envelope.logLevel;
    return minimum !== undefined && passesLogLevel(level, minimum);
  }

  /** A missing capability is the handler's error in the legacy era and the request's `-32021` in the modern one. */
  private assertCapability(check: () => void): void {
    try {
      check();
    } catch (error) {
      if (this.modern && error instanceof McpClientCapabilityError) {
        throw new McpMissingClientCapabilityException(capabilityObject(error.capability));
      }
      throw error;
    }
  }

  /**
   * Serializes and sends a related message. Serializing here, inside the handler's await,
   * makes a value JSON cannot hold (a BigInt, a cycle) the handler's own error.
   */
  private sendRelated(message: object): void {
    if (this.completed) {
      logger.debug(`Dropped a related message: request ${String(this.rpc.id)} already has its response`);
      return;
    }
    const json = JSON.stringify(message);
    if (!this.dispatch.sendRelated?.(json)) {
      logger.debug(`Dropped a related message of request ${String(this.rpc.id)}: no channel to the client`);
    }
  }

  /** Asks the client: an MRTR round (modern) or a pushed request on this request's channel (legacy). */
  private ask(method: McpInputRequest['method'], params: Record<string, unknown>, options?: McpClientRequestOptions) {
    if (this.modern) {
      const round = this.modern.round;
      if (!round) throw new McpClientUnreachableError(method, `${this.rpc.method} cannot ask the client for input`);
      return round.ask(method, params, options?.key);
    }
    const session = this.dispatch.session;
    const send = this.dispatch.sendRelated;
    if (!session || !this.clientRequests || !send) {
      throw new McpClientUnreachableError(method, 'the request has no session with a channel to the client');
    }
    if (this.completed) {
      throw new McpClientUnreachableError(method, `request ${String(this.rpc.id)} already has its response`);
    }
    return this.clientRequests.request(session.id, method, params, {
      send,
      signal: this.controller.signal,
      timeoutMs: options?.timeoutMs,
      principal: this.dispatch.auth,
    });
  }

  private bind<T>(name: Bound, fn: T): T {
    const bound = (this.bound ??= {});
    return (bound[name] ??= fn) as T;
  }
}

/** `'sampling.tools'` → `{ sampling: { tools: {} } }`, the shape `-32021` reports. */
function capabilityObject(path: string): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<Record<string, unknown>>((inner, name) => ({ [name]: inner }), {});
}

const isProgressToken = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
