import type { McpRequestContext, McpRoundState, McpTaskContext } from './mcp-request-context.js';
import type { McpLogLevel } from '../model/log-level.js';
import { assertCanElicit, assertCanListRoots, assertCanSample } from './client-capabilities.js';
import type {
  McpClientRequestOptions,
  McpElicitFormParams,
  McpElicitResult,
  McpElicitUrlParams,
  McpRoot,
  McpSamplingParams,
  McpSamplingResult,
} from './client-request.types.js';
import type { ClientAsk, RequestChannel } from './request-channel.js';

/** The parts of a context that go through its channel. */
type ChannelPart =
  'signal' | 'task' | 'becomeTask' | 'sendNotification' | 'reportProgress' | 'log' | 'elicit' | 'sample' | 'listRoots';

/** What a context tells about its request: the same whatever channel it goes through. */
export type RequestFacts = Omit<McpRequestContext, ChannelPart>;

type Bound = 'sendNotification' | 'reportProgress' | 'log' | 'elicit' | 'sample' | 'listRoots';

/**
 * The one implementation of the handler's context (`McpRequestContext`): its request's facts
 * (who asks, in which era and session) and a channel (`RequestChannel`) for what it sends and
 * asks. The request's own channel is the default (`RequestContext`, in the protocol core); a
 * task runs the handler on the same facts through a task channel (`through`), a read forwarded
 * from another instance on a channel that cannot reach the client. Its methods are bound on
 * first access (handlers may destructure them), so a request that never reports progress or
 * asks the client pays for none of it.
 */
export class ChannelContext implements McpRequestContext {
  // Fields declared only and assigned in the constructor (no parameter properties or
  // initializers): made once per request, a context then runs no field initializer.
  declare private readonly facts: RequestFacts;
  declare private readonly channel: RequestChannel;
  /** Made on first use. */
  declare private bound?: Partial<Record<Bound, unknown>>;

  constructor(facts: RequestFacts, channel: RequestChannel) {
    this.facts = facts;
    this.channel = channel;
  }

  /** The same request through another channel, made from this context's own. */
  through(make: (own: RequestChannel) => RequestChannel): ChannelContext {
    return new ChannelContext(this.facts, make(this.channel));
  }

  get meta() {
    return this.facts.meta;
  }
  get requestId() {
    return this.facts.requestId;
  }
  get method() {
    return this.facts.method;
  }
  get era() {
    return this.facts.era;
  }
  get protocolVersion() {
    return this.facts.protocolVersion;
  }
  get sessionId() {
    return this.facts.sessionId;
  }
  get session() {
    return this.facts.session;
  }
  get transport() {
    return this.facts.transport;
  }
  get request() {
    return this.facts.request;
  }
  get auth() {
    return this.facts.auth;
  }
  get clientCapabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.facts.clientCapabilities;
  }
  get roundState(): McpRoundState {
    return this.facts.roundState;
  }
  get signal(): AbortSignal {
    return this.channel.signal;
  }
  get task(): McpTaskContext | undefined {
    return this.channel.task;
  }
  get becomeTask(): McpRequestContext['becomeTask'] {
    return this.channel.becomeTask;
  }
  /** True once the response is decided. */
  get completed(): boolean {
    return this.channel.completed;
  }

  /** The response is decided: related messages sent from now on are dropped. */
  complete(): void {
    this.channel.complete();
  }

  get sendNotification(): McpRequestContext['sendNotification'] {
    return this.bind('sendNotification', (method: string, params?: Record<string, unknown>) =>
      this.channel.notify(method, params),
    );
  }

  get reportProgress(): McpRequestContext['reportProgress'] {
    return this.bind('reportProgress', (progress: number, total?: number, message?: string) =>
      this.channel.progress(progress, total, message),
    );
  }

  get log(): McpRequestContext['log'] {
    return this.bind('log', (level: McpLogLevel, data: unknown, loggerName?: string) =>
      this.channel.log(level, data, loggerName),
    );
  }

  get elicit(): McpRequestContext['elicit'] {
    return this.bind(
      'elicit',
      async (params: McpElicitFormParams | McpElicitUrlParams, options?: McpClientRequestOptions) => {
        const url = params.mode === 'url';
        const question: ClientAsk = {
          method: 'elicitation/create',
          params: params as unknown as Record<string, unknown>,
          url,
          check: () => assertCanElicit(this.clientCapabilities, url ? 'url' : 'form'),
        };
        return (await this.channel.ask(question, options)) as McpElicitResult;
      },
    );
  }

  get sample(): McpRequestContext['sample'] {
    return this.bind('sample', async (params: McpSamplingParams, options?: McpClientRequestOptions) => {
      const question: ClientAsk = {
        method: 'sampling/createMessage',
        params: params as unknown as Record<string, unknown>,
        check: () => assertCanSample(this.clientCapabilities, params),
      };
      return (await this.channel.ask(question, options)) as McpSamplingResult;
    });
  }

  get listRoots(): McpRequestContext['listRoots'] {
    return this.bind('listRoots', async (options?: McpClientRequestOptions) => {
      const question: ClientAsk = {
        method: 'roots/list',
        params: {},
        check: () => assertCanListRoots(this.clientCapabilities),
      };
      const result = await this.channel.ask(question, options);
      return { roots: Array.isArray(result.roots) ? (result.roots as McpRoot[]) : [] };
    });
  }

  private bind<T>(name: Bound, fn: T): T {
    const bound = (this.bound ??= {});
    return (bound[name] ??= fn) as T;
  }
}
