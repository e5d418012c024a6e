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

/** The facts of a request as the dispatch and its era context know them. */
function dispatchFacts(init: RequestContextInit): RequestFacts {
  const { rpc, dispatch, era } = init;
  const meta = init.params._meta;
  const own = typeof meta === 'object' && meta !== null && !Array.isArray(meta);
  return {
    ...(own ? { meta: meta as Record<string, unknown> } : {}),
    get requestId() {
      return rpc.id;
    },
    get method() {
      return rpc.method;
    },
    get era() {
      return era.era;
    },
    get protocolVersion() {
      return era.protocolVersion;
    },
    get sessionId() {
      return dispatch.session?.id;
    },
    get session() {
      return dispatch.session;
    },
    get transport() {
      return dispatch.transport;
    },
    get request() {
      return dispatch.request;
    },
    get auth() {
      return dispatch.auth;
    },
    get clientCapabilities() {
      return era.clientCapabilities;
    },
    get roundState() {
      return era.roundState;
    },
  };
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
    super(dispatchFacts(init), new DispatchChannel(init));
  }
}
