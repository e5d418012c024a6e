import type { McpProtocolVersion } from '../mcp.constants.js';
import type { McpLogLevel } from '../logging/log-level.js';
import type {
  McpClientRequestOptions,
  McpElicitFormParams,
  McpElicitResult,
  McpElicitUrlParams,
  McpRoot,
  McpSamplingParams,
  McpSamplingResult,
} from '../client-requests/client-request.types.js';
import type { McpTransportKind } from '../interfaces/mcp-transport.interface.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import type { McpSessionRecord } from '../session/mcp-session.interface.js';

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
  /** The protocol version that governs this request. */
  readonly protocolVersion: McpProtocolVersion;
  readonly transport: McpTransportKind;
  /** The raw transport request (the Express request over HTTP). */
  readonly request: unknown;
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
   * the client declared it, URL mode. Rejects with `McpClientCapabilityError` when the client
   * did not declare the capability, `McpClientRequestTimeoutError` when it does not answer.
   */
  elicit(params: McpElicitFormParams | McpElicitUrlParams, options?: McpClientRequestOptions): Promise<McpElicitResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample(params: McpSamplingParams, options?: McpClientRequestOptions): Promise<McpSamplingResult>;
  /** Asks the client for its roots (`roots/list`). */
  listRoots(options?: McpClientRequestOptions): Promise<{ roots: McpRoot[] }>;
}
