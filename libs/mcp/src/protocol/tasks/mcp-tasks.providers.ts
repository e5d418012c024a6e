import type { Provider } from '@nestjs/common';
import { McpTasks } from './mcp-tasks.service.js';
import { McpTaskChannels } from './task-channels.js';
import { McpTaskEvents } from './task-events.js';
import { McpTaskListens } from './task-listens.js';
import { TasksHandler } from './tasks.handler.js';

/** The providers of tasks (long-running tool calls, both eras). */
export const MCP_TASK_PROVIDERS: Provider[] = [McpTaskEvents, McpTaskChannels, McpTasks, TasksHandler, McpTaskListens];
