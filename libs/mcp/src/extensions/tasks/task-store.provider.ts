import type { Provider } from '@nestjs/common';
import { McpLogger } from '../../logging/mcp-logger.js';
import { InMemoryTaskStore } from './store/in-memory-task.store.js';
import { LocalInstanceMessaging } from '../../backend/in-memory/local-instance-messaging.js';
import { MCP_INSTANCE_MESSAGING, MCP_TASK_STORE } from '../../backend/mcp-backend.tokens.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import type { McpTaskStore } from './store/mcp-task.store.js';

/** The task store the tasks extension uses: the backend's, or one in this process. */
export const TASKS_STORE = Symbol('mcp:tasks-store');

/**
 * The backend's task store, else one in this process: tasks then live in each process, which a
 * deployment of several instances is told about once, at startup.
 */
export function tasksStoreOf(store: McpTaskStore | null | undefined, messaging: McpInstanceMessaging): McpTaskStore {
  if (!store && !(messaging instanceof LocalInstanceMessaging)) {
    new McpLogger('McpTasks').warn(
      'The backend has no task store: tasks live in each process, so only the instance that created a task answers for it.',
    );
  }
  return store ?? new InMemoryTaskStore();
}

export const TASKS_STORE_PROVIDER: Provider = {
  provide: TASKS_STORE,
  useFactory: tasksStoreOf,
  inject: [{ token: MCP_TASK_STORE, optional: true }, MCP_INSTANCE_MESSAGING],
};
