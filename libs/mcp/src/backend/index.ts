// The public API for backend authors (`@nest-mcp/server/backend`): the seams a backend implements
// (one line per seam file, so a seam's types follow it), the in-memory backend to build on or
// wrap, and the helpers that deliver notifications the way the core does. Backend test helpers
// live in `@nest-mcp/server/testing`.

// The backend and its parts
export type * from './mcp-backend.interface.js';
export { McpBackendUnavailableError } from './mcp-backend.interface.js';
export { InMemoryMcpBackend } from './in-memory/in-memory.backend.js';
export { InMemoryTaskStore } from '../extensions/tasks/store/in-memory-task.store.js';
export { InMemorySkillStore } from './in-memory/in-memory-skill.store.js';

// The seams
export type * from './mcp-session.store.js';
export type * from './mcp-subscription.store.js';
export type * from './mcp-fanout.js';
export type * from './mcp-live-streams.js';
export type * from './mcp-post-streams.js';
export type * from './mcp-rate-windows.js';
export type * from './mcp-request-state-nonces.js';
export type * from './mcp-instance-messaging.js';
export type * from '../extensions/tasks/store/mcp-task.store.js';
export type * from './mcp-skill.store.js';
export {
  isTerminalTaskStatus,
  McpTaskCursorError,
  ORPHANED_TASK,
  RESULT_NOT_KEPT,
} from '../extensions/tasks/store/mcp-task.store.js';
export { MCP_ALL_INSTANCES } from './mcp-instance-messaging.js';

// Logging as the core does: client text redacted, escaped onto one line, bounded
export { McpLogger } from '../logging/mcp-logger.js';

// Delivering as the core does
export { DELIVERY_QUEUE_GAUGE } from './delivery/delivery-queue.js';
export { ListenerIndex } from './delivery/listener-index.js';
export {
  LIST_CHANGED_JSON,
  LIST_CHANGED_METHODS,
  RESOURCE_UPDATED,
  resourceUpdatedJson,
} from './delivery/notification.messages.js';

// Principals, as sessions and their stores compare them
export {
  principalBinding,
  principalDigest,
  isSamePrincipal,
  type McpPrincipal,
  type McpPrincipalBinding,
} from '../model/mcp-principal.js';
