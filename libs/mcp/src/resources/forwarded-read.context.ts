import type { McpPrincipal } from '../model/mcp-principal.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { ChannelContext, type RequestFacts } from '../context/channel-context.js';
import type { ClientAsk, RequestChannel } from '../context/request-channel.js';
import { McpClientUnreachableError } from '../errors/client-request.errors.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';
import type { McpAnyProtocolVersion } from '../mcp.constants.js';
import type { JsonRpcId } from '../model/json-rpc.js';
import { McpLogger } from '../logging/mcp-logger.js';

const logger = new McpLogger('McpResources');

/** Why a forwarded read cannot reach the client. */
const ELSEWHERE =
  "this runtime resource's handler runs on another instance (the one that registered it), which cannot reach the client";

/**
 * What the instance a client reads through tells the instance that registered the resource
 * about the request: the caller as it authenticated it (never the raw token) and what the
 * handler may read of the request. Plain JSON: it crosses the backend's instance messaging.
 */
export interface ForwardedReadFacts {
  readonly requestId: JsonRpcId;
  readonly sessionId?: string;
  readonly protocolVersion: McpAnyProtocolVersion;
  readonly era: 'legacy' | 'modern';
  readonly transport: McpTransportKind;
  readonly auth?: McpPrincipal;
  readonly meta?: Record<string, unknown>;
}

/** The facts of a read to forward: the principal's token stays on this instance. */
export function forwardedReadFacts(ctx: McpRequestContext): ForwardedReadFacts {
  let auth: McpPrincipal | undefined;
  if (ctx.auth) {
    const { token: _token, ...withoutToken } = ctx.auth;
    auth = withoutToken;
  }
  return {
    requestId: ctx.requestId,
    sessionId: ctx.sessionId,
    protocolVersion: ctx.protocolVersion,
    era: ctx.era,
    transport: ctx.transport,
    ...(auth ? { auth } : {}),
    ...(ctx.meta ? { meta: ctx.meta } : {}),
  };
}

/** The name of the context's method for each question to the client, as its error names it. */
const ASKED_BY: Record<ClientAsk['method'], string> = {
  'elicitation/create': 'ctx.elicit',
  'sampling/createMessage': 'ctx.sample',
  'roots/list': 'ctx.listRoots',
};

/**
 * The channel of a read that another instance forwarded: the client is out of reach from here.
 * Asking it (`elicit`, `sample`, `listRoots`) or reporting progress throws
 * `McpClientUnreachableError` at once (no capability check: no answer could come either way);
 * `log` and `sendNotification` are dropped, as they are for any request without a channel.
 */
class ForwardedReadChannel implements RequestChannel {
  private done = false;

  constructor(
    private readonly uri: string,
    readonly signal: AbortSignal,
  ) {}

  get completed(): boolean {
    return this.done;
  }

  complete(): void {
    this.done = true;
  }

  async notify(method: string): Promise<void> {
    logger.debug(`Dropped ${method} of a forwarded read of ${this.uri}: no channel to the client here`);
  }

  async log(): Promise<void> {
    logger.debug(`Dropped a log message of a forwarded read of ${this.uri}: no channel to the client here`);
  }

  async progress(): Promise<void> {
    throw new McpClientUnreachableError('ctx.reportProgress', ELSEWHERE, this.uri);
  }

  async ask(question: ClientAsk): Promise<never> {
    throw new McpClientUnreachableError(ASKED_BY[question.method], ELSEWHERE, this.uri);
  }
}

/** The facts of a forwarded read as its handler sees them: the client's side stays on the other instance. */
function forwardedFacts(facts: ForwardedReadFacts): RequestFacts {
  const state = new Map<string, unknown>();
  return {
    method: 'resources/read',
    session: undefined,
    clientCapabilities: undefined,
    request: undefined,
    requestId: facts.requestId,
    sessionId: facts.sessionId,
    protocolVersion: facts.protocolVersion,
    era: facts.era,
    transport: facts.transport,
    auth: facts.auth,
    meta: facts.meta,
    roundState: {
      get: <T>(key: string) => state.get(key) as T | undefined,
      set: (key: string, value: unknown) => void (value === undefined ? state.delete(key) : state.set(key, value)),
    },
  };
}

/**
 * The context of a runtime resource's handler running for a read that another instance
 * forwarded: the caller (`auth`, with its scopes) and the request's facts are those of the
 * instance the client talks to; the client itself is out of reach (`ForwardedReadChannel`).
 */
export function forwardedReadContext(uri: string, facts: ForwardedReadFacts, signal: AbortSignal): ChannelContext {
  return new ChannelContext(forwardedFacts(facts), new ForwardedReadChannel(uri, signal));
}
