import type { McpPrincipal } from '../model/mcp-principal.js';
import type { McpRequestContext, McpRoundState } from '../context/mcp-request-context.js';
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

/**
 * The context of a runtime resource's handler running for a read that another instance
 * forwarded: the caller (`auth`, with its scopes) and the request's facts are those of the
 * instance the client talks to; the client itself is out of reach. Asking it (`elicit`,
 * `sample`, `listRoots`) or reporting progress throws `McpClientUnreachableError` at once;
 * `log` and `sendNotification` are dropped, as they are for any request without a channel.
 */
export class ForwardedReadContext implements McpRequestContext {
  readonly method = 'resources/read';
  readonly session = undefined;
  readonly clientCapabilities = undefined;
  readonly request = undefined;
  readonly requestId: JsonRpcId;
  readonly sessionId?: string;
  readonly protocolVersion: McpAnyProtocolVersion;
  readonly era: 'legacy' | 'modern';
  readonly transport: McpTransportKind;
  readonly auth?: McpPrincipal;
  readonly meta?: Record<string, unknown>;
  private readonly state = new Map<string, unknown>();

  constructor(
    private readonly uri: string,
    facts: ForwardedReadFacts,
    readonly signal: AbortSignal,
  ) {
    this.requestId = facts.requestId;
    this.sessionId = facts.sessionId;
    this.protocolVersion = facts.protocolVersion;
    this.era = facts.era;
    this.transport = facts.transport;
    this.auth = facts.auth;
    this.meta = facts.meta;
  }

  get roundState(): McpRoundState {
    return {
      get: <T>(key: string) => this.state.get(key) as T | undefined,
      set: (key: string, value: unknown) =>
        void (value === undefined ? this.state.delete(key) : this.state.set(key, value)),
    };
  }

  sendNotification = async (method: string): Promise<void> => {
    logger.debug(`Dropped ${method} of a forwarded read of ${this.uri}: no channel to the client here`);
  };

  log = async (): Promise<void> => {
    logger.debug(`Dropped a log message of a forwarded read of ${this.uri}: no channel to the client here`);
  };

  reportProgress = async (): Promise<void> => {
    throw new McpClientUnreachableError('ctx.reportProgress', ELSEWHERE, this.uri);
  };

  elicit = async (): Promise<never> => {
    throw new McpClientUnreachableError('ctx.elicit', ELSEWHERE, this.uri);
  };

  sample = async (): Promise<never> => {
    throw new McpClientUnreachableError('ctx.sample', ELSEWHERE, this.uri);
  };

  listRoots = async (): Promise<never> => {
    throw new McpClientUnreachableError('ctx.listRoots', ELSEWHERE, this.uri);
  };
}
