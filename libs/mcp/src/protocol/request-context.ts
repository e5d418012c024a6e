import type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
import type { JsonRpcRequest } from '../model/json-rpc.js';
import { ChannelContext, type RequestFacts } from '../context/channel-context.js';
import type { LazyAbortController } from './inflight-requests.js';
import type { EraRequest, McpEraContext } from './era-context.js';
import type { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { DispatchChannel } from './dispatch-channel.js';

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

/**
 * The facts of a request as the dispatch and its era context know them, read through when
 * asked: `initialize` creates the session while it runs. A class, so that the getters live on
 * its prototype and a request allocates one small object, not eleven accessors.
 */
class DispatchFacts implements RequestFacts {
  // Fields declared only and assigned in the constructor: a request runs no field initializer.
  declare private readonly init: RequestContextInit;
  /** The request's `_meta`, when it is an object: read once, shared with its channel. */
  declare readonly meta?: Record<string, unknown>;

  constructor(init: RequestContextInit) {
    this.init = init;
    const meta = init.params._meta;
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) this.meta = meta as Record<string, unknown>;
  }

  get requestId() {
    return this.init.rpc.id;
  }
  get method() {
    return this.init.rpc.method;
  }
  get era() {
    return this.init.era.era;
  }
  get protocolVersion() {
    return this.init.era.protocolVersion;
  }
  get sessionId() {
    return this.init.dispatch.session?.id;
  }
  get session() {
    return this.init.dispatch.session;
  }
  get transport() {
    return this.init.dispatch.transport;
  }
  get request() {
    return this.init.dispatch.request;
  }
  get auth() {
    return this.init.dispatch.auth;
  }
  get clientCapabilities() {
    return this.init.era.clientCapabilities;
  }
  get roundState() {
    return this.init.era.roundState;
  }
}

/**
 * The context of one request as the dispatch builds it: its facts from the request, the
 * dispatch and its era context, on the request's own channel (`DispatchChannel`: related
 * messages on the request's stream, questions as the era asks them). What differs between the
 * protocol eras is its era context's: handler code is the same for both. Everything else is
 * `ChannelContext`'s, the one implementation of the handler's context.
 */
export class RequestContext extends ChannelContext implements EraRequest {
  constructor(init: RequestContextInit) {
    const facts = new DispatchFacts(init);
    super(facts, new DispatchChannel(init, facts.meta));
  }
}
