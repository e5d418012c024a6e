/**
 * The names the OpenTelemetry semantic conventions for MCP give spans, attributes and metrics
 * (https://github.com/open-telemetry/semantic-conventions-genai, page "gen-ai/mcp"; before that
 * in open-telemetry/semantic-conventions), and the library's own,
 * under `nest_mcp.`. Kept here as plain strings: the library depends on `@opentelemetry/api`
 * only, and the conventions package would be a second dependency for a few constants.
 */

export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const ATTR_NETWORK_PROTOCOL_VERSION = 'network.protocol.version';
export const ATTR_CLIENT_ADDRESS = 'client.address';
export const ATTR_CLIENT_PORT = 'client.port';

/** `gen_ai.operation.name` of a tool call. */
export const GEN_AI_EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a tool result with `isError: true`. */
export const ERROR_TYPE_TOOL_ERROR = 'tool_error';
/** `error.type` of a request cancelled before it was answered (by the client or the transport). */
export const ERROR_TYPE_CANCELLED = 'cancelled';
/** `error.type` when nothing more precise applies. */
export const ERROR_TYPE_OTHER = '_OTHER';

export const METRIC_OPERATION_DURATION = 'mcp.server.operation.duration';
export const METRIC_SESSION_DURATION = 'mcp.server.session.duration';

/** The bucket boundaries, in seconds, the conventions give both duration histograms. */
export const DURATION_BUCKETS_SECONDS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The library's own attributes and metrics live under this prefix. */
export const LIBRARY_PREFIX = 'nest_mcp';

/** A modern result that is not the final one: `input_required` (a multi round-trip round) or `task`. */
export const ATTR_RESULT_TYPE = 'nest_mcp.result_type';

/** `nest_mcp.tasks`: the status of the tasks counted. */
export const ATTR_TASK_STATUS = `${LIBRARY_PREFIX}.task.status`;
/** `nest_mcp.streams.held`: the transport holding the streams counted. */
export const ATTR_TRANSPORT = `${LIBRARY_PREFIX}.transport`;
/** `nest_mcp.requests.refused`: why. */
export const ATTR_REFUSAL_REASON = `${LIBRARY_PREFIX}.refusal.reason`;

/** The instrumentation scope of the library's tracer and meter. */
export const INSTRUMENTATION_SCOPE = '@nest-mcp/server';
