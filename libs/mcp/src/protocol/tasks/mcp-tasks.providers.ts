import type { Provider } from '@nestjs/common';
import { McpTasks } from './mcp-tasks.service.js';
import { McpTaskChannels } from './task-channels.js';
import { McpTaskEvents } from './task-events.js';
import { McpTaskListens } from './task-listens.js';

/** The services of tasks (long-running tool calls, both eras); `tasks/*` is a method group among the others. */
export const MCP_TASK_PROVIDERS: Provider[] = [McpTaskEvents, McpTaskChannels, McpTasks, McpTaskListens];
