import type { McpAnyProtocolVersion } from '../mcp.constants.js';
import type { McpLogLevel } from '../model/log-level.js';
import type {
  McpClientRequestOptions,
  McpElicitFormParams,
  McpElicitResult,
  McpElicitUrlParams,
  McpRoot,
  McpSamplingParams,
  McpSamplingResult,
} from './client-request.types.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';
import type { JsonRpcId } from '../model/json-rpc.js';
import type { McpSessionRecord } from '../backend/mcp-session.store.js';
import type { McpPrincipal } from '../model/mcp-principal.js';

/**
 * Everything a handler may want to know about the MCP request it serves: the second argument
 * of every tool, resource and prompt handler, and what `@McpCtx()` injects.
 * @publicApi
 */
export interface McpRequestContext {
  /** The JSON-RPC id of the request. */
  readonly requestId: JsonRpcId;
  /** The JSON-RPC method (`tools/call`, `resources/read`, `prompts/get`). */
  readonly method: string;
  /** The session, when the request belongs to one. */
  readonly sessionId?: string;
  readonly session?: Readonly<McpSessionRecord>;
  /** The protocol version that governs this request (`2026-07-28` for a modern-era request). */
  readonly protocolVersion: McpAnyProtocolVersion;
  /** The era of the request: `legacy` (a session or connection after `initialize`) or `modern` (stateless). */
  readonly era: 'legacy' | 'modern';
  /**
   * The capabilities the client declared: in the session's `initialize` (legacy) or in this
   * request's `_meta` (modern).
   */
  readonly clientCapabilities?: Readonly<Record<string, unknown>>;
  /**
   * State that survives the rounds of a multi round-trip request. In the modern era a handler
   * that asks the client (`elicit`, `sample`, `listRoots`) runs again from the start on each
   * round; what it `set` here comes back on the next round (signed into `requestState`, so keep it
   * small and JSON). In the legacy era the handler runs once and this is a plain map.
   */
  readonly roundState: McpRoundState;
  readonly transport: McpTransportKind;
  /** The raw transport request (the Express request over HTTP). */
  readonly request: unknown;
  /**
   * Who makes this request, from its own access token (never the session's first one): set in
   * resource-server mode (`auth`) on every HTTP transport; `undefined` without it and on stdio.
   */
  readonly auth?: McpPrincipal;
  /** Aborted when the request is cancelled or the server shuts down. */
  readonly signal: AbortSignal;
  /** `params._meta` of the request, as sent. */
  readonly meta?: Record<string, unknown>;
  /**
   * Sends a notification related to this request, before its response (over HTTP the POST
   * answer becomes an SSE stream).
   */
  sendNotification(method: string, params?: Record<string, unknown>): Promise<void>;
  /**
   * Sends `notifications/progress` with the client's progress token. Does nothing when the
   * client sent no token, when `progress` does not exceed the last value sent, or once the
   * response is on its way.
   */
  reportProgress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends `notifications/message { level, logger?, data }` to the client, when `level` passes
   * the session's `logging/setLevel` (every level passes until the client sets one). Never put
   * credentials or personal data in `data`.
   */
  log(level: McpLogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the user for input through the client (`elicitation/create`), in form mode or, when
   * the client declared it, URL mode. Legacy era: a request pushed to the client; rejects with
   * `McpClientCapabilityError` when the client did not declare the capability,
   * `McpClientRequestTimeoutError` when it does not answer. Modern era: an `input_required`
   * round (MRTR); a missing capability answers the request with `-32021`.
   */
  elicit(params: McpElicitFormParams | McpElicitUrlParams, options?: McpClientRequestOptions): Promise<McpElicitResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample(params: McpSamplingParams, options?: McpClientRequestOptions): Promise<McpSamplingResult>;
  /** Asks the client for its roots (`roots/list`). */
  listRoots(options?: McpClientRequestOptions): Promise<{ roots: McpRoot[] }>;
  /**
   * Set while the call runs as a task (a tool with `taskSupport`): the task the client polls.
   * In a task, `signal` aborts on `tasks/cancel` (from any instance), when its time to live
   * lapses and at shutdown; `reportProgress`'s message becomes the task's status message;
   * `elicit`, `sample` and `listRoots` make it `input_required` until the client answers.
   */
  readonly task?: McpTaskContext;
  /**
   * Turns the call into a task now, when it may become one (a tool with `taskSupport`, called
   * by a client that can poll a task): the client is answered with the task at once, and the
   * handler goes on as the task. Resolves `true` once the task exists (at once when it already
   * is one), `false` when the call goes on in its request instead. Present only on calls that
   * may run as tasks; call it as `await ctx.becomeTask?.()`.
   *
   * Without it, a call of the tasks extension becomes a task when it outlasts `taskHandoffMs`;
   * a handler that asks the client for input before that asks in its request (a multi
   * round-trip round), so one that must ask as a task calls this first.
   */
  becomeTask?(): Promise<boolean>;
}

/** The task a handler runs as (`ctx.task`). @publicApi */
export interface McpTaskContext {
  /** The id the client polls (`tasks/get`). */
  readonly taskId: string;
  /**
   * Sets the task's `statusMessage`, which every poll shows. Writes are coalesced: while one is
   * on its way only the latest of the next ones follows it.
   */
  setStatusMessage(message: string): Promise<void>;
}

/** Values a handler keeps across the rounds of a multi round-trip request. @publicApi */
export interface McpRoundState {
  get<T = unknown>(key: string): T | undefined;
  /** Keeps a JSON value for the next round (`undefined` removes it). */
  set(key: string, value: unknown): void;
}
