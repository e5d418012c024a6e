/** Metadata key of `@McpTool()` on a method. */
export const MCP_TOOL_METADATA = 'mcp:tool';
/** Metadata key of `@McpResource()` on a method. */
export const MCP_RESOURCE_METADATA = 'mcp:resource';
/** Metadata key of `@McpPrompt()` on a method. */
export const MCP_PROMPT_METADATA = 'mcp:prompt';

/** The value of `ExecutionContext#getType()` inside MCP handlers. */
export const MCP_CONTEXT_TYPE = 'mcp';

/** The legacy-era (`initialize`-based) protocol versions this library speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type McpProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: McpProtocolVersion = '2025-11-25';

/** The modern-era (stateless, per-request `_meta`) protocol versions this library speaks. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export type McpModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];
/** Any version a request may be served under. */
export type McpAnyProtocolVersion = McpProtocolVersion | McpModernProtocolVersion;

/** Which protocol eras an endpoint serves (docs/decisions/0003-two-protocol-eras-on-one-endpoint.md). */
export type McpProtocolEras = 'dual' | 'legacy' | 'modern';
/** Assumed when a client sends no `MCP-Protocol-Version` header and nothing was negotiated. */
export const FALLBACK_HEADER_PROTOCOL_VERSION: McpProtocolVersion = '2025-03-26';

export const DEFAULT_MCP_PATH = '/mcp';
export const DEFAULT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
export const DEFAULT_SESSION_CLEANUP_INTERVAL_MS = 60 * 1000;
export const DEFAULT_PAGE_SIZE = 100;
export const DEFAULT_KEEP_ALIVE_MS = 15 * 1000;
export const DEFAULT_MAX_IN_FLIGHT_REQUESTS = 100;
export const DEFAULT_REPLAY_BUFFER_SIZE = 256;
export const DEFAULT_STREAM_BUFFER_BYTES = 1024 * 1024;
export const DEFAULT_LIST_CHANGED_DEBOUNCE_MS = 50;
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60 * 1000;
export const DEFAULT_MAX_SESSIONS = 10_000;
export const DEFAULT_MAX_ARGUMENT_DEPTH = 64;
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION = 1_000;

/** HTTP header names (lower case, as Node presents them). */
export const SESSION_ID_HEADER = 'mcp-session-id';
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
export const LAST_EVENT_ID_HEADER = 'last-event-id';
export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';
export const PARAM_HEADER_PREFIX = 'mcp-param-';

/** Reserved `_meta` keys of the modern era. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

export const DEFAULT_MAX_LISTENS = 10_000;
export const DEFAULT_MAX_LISTEN_URIS = 1_000;
/** Life of one round's MRTR requestState: time for a person to answer a form, and no more. */
export const DEFAULT_REQUEST_STATE_TTL_MS = 5 * 60 * 1000;

/** DI token of the module options with defaults applied (`ResolvedMcpOptions`). */
export const MCP_RESOLVED_OPTIONS = Symbol('MCP_RESOLVED_OPTIONS');
