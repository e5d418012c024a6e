import {
  McpClientRequestError,
  McpClientRequestTimeoutError,
  McpClientUnreachableError,
} from '../errors/client-request.errors.js';
import type { McpAskFailure } from '../telemetry/mcp-telemetry.js';
import { McpRequestCancelledError } from './inflight-requests.js';
import { McpInputRequiredSignal } from './modern/input-round.js';

/** The attribute that says how a request to the client travelled: `request`, `mrtr` or `task`. */
export const ATTR_ASK_CHANNEL = 'nest_mcp.client_request.channel';

/** The task a span belongs to. */
export const ATTR_TASK_ID = 'nest_mcp.task.id';

/**
 * What a failed request to the client was, for its CLIENT span: the client's JSON-RPC error, a
 * timeout, no channel to the client, a withdrawal; or no failure at all when a multi round-trip
 * round closed to ask the client (the request answers `input_required`, the retry goes on).
 */
export function describeAskFailure(error: unknown): McpAskFailure {
  if (error instanceof McpInputRequiredSignal)
    return { attributes: { 'nest_mcp.client_request.outcome': 'input_required' } };
  if (error instanceof McpClientRequestError)
    return { errorType: String(error.code), code: error.code, message: error.message };
  if (error instanceof McpClientRequestTimeoutError) return { errorType: 'timeout', message: error.message };
  if (error instanceof McpClientUnreachableError) return { errorType: 'unreachable', message: error.message };
  if (error instanceof McpRequestCancelledError) return { errorType: 'cancelled', message: error.message };
  return { errorType: '_OTHER', message: error instanceof Error ? error.message : String(error) };
}
