import type { Provider } from '@nestjs/common';
import { McpTasks } from './mcp-tasks.service.js';
import { McpTaskChannels } from './task-channels.js';
import { McpTaskEvents } from './task-events.js';
import { McpTaskListens } from './task-listens.js';
import { McpTaskLookup } from './task-lookup.js';
import { McpTaskRunFactory } from './task-run-factory.js';
import { McpTaskRuns } from './task-runs.js';
import { TASKS_STORE_PROVIDER } from './task-store.provider.js';
import { McpTasksExtension } from './tasks.extension.js';

/** Tasks (long-running tool calls, both eras): its services, and the extension that plugs them into the core. */
export const MCP_TASK_PROVIDERS: Provider[] = [
  TASKS_STORE_PROVIDER,
  McpTaskEvents,
  McpTaskRuns,
  McpTaskChannels,
  McpTaskRunFactory,
  McpTaskLookup,
  McpTasks,
  McpTaskListens,
  McpTasksExtension,
];
