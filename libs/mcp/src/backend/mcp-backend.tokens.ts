/** DI token of the backend's parts, built once at startup (`McpBackend.connect`). */
export const MCP_BACKEND_PARTS = Symbol('MCP_BACKEND_PARTS');
/** DI token of the session store (`McpSessionStore`). */
export const MCP_SESSION_STORE = Symbol('MCP_SESSION_STORE');
/** DI token of the subscription store (`McpSubscriptionStore`). */
export const MCP_SUBSCRIPTION_STORE = Symbol('MCP_SUBSCRIPTION_STORE');
/** DI token of the fan-out of notifications (`McpFanout`). */
export const MCP_FANOUT = Symbol('MCP_FANOUT');
/** DI token of the standalone streams this instance holds (`McpLiveStreams`). */
export const MCP_LIVE_STREAMS = Symbol('MCP_LIVE_STREAMS');
/** DI token of the logs of POST answers and their resumption (`McpPostStreams`). */
export const MCP_POST_STREAMS = Symbol('MCP_POST_STREAMS');
/** DI token of the messaging between instances (`McpInstanceMessaging`). */
export const MCP_INSTANCE_MESSAGING = Symbol('MCP_INSTANCE_MESSAGING');
/** DI token of the shared rate-limit windows (`McpRateWindows`), when the backend has them. */
export const MCP_RATE_WINDOWS = Symbol('MCP_RATE_WINDOWS');
/** DI token of the replay guard of MRTR request states (`McpRequestStateNonces`), when the backend has one. */
export const MCP_REQUEST_STATE_NONCES = Symbol('MCP_REQUEST_STATE_NONCES');
/** DI token of the task store (`McpTaskStore`): the backend's, else one of this process. */
export const MCP_TASK_STORE = Symbol('MCP_TASK_STORE');
/** DI token of the store of skills registered at runtime (`McpSkillStore`): the backend's, else one of this process. */
export const MCP_SKILL_STORE = Symbol('MCP_SKILL_STORE');
