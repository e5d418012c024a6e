import { Inject, Injectable } from '@nestjs/common';
import type { McpTaskStore } from './store/mcp-task.store.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import { taskEraOf } from './task-eras.js';
import { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { McpTaskChannels } from './task-channels.js';
import { McpTaskEvents } from './task-events.js';
import { TaskRun, type TaskRunServices } from './task-run.js';
import { TASKS_STORE } from './task-store.provider.js';

/**
 * Builds the run of a call that runs as a task, or may become one: what it writes (the task
 * store, the change hints every instance hears), how it reaches its client (the task channels,
 * over the link its era's rules give it), how its errors become the task's, and its spans.
 */
@Injectable()
export class McpTaskRunFactory {
  private readonly services: TaskRunServices;

  constructor(
    @McpOptions('tasks') options: McpOptionGroup<'tasks'>,
    @Inject(TASKS_STORE) store: McpTaskStore,
    events: McpTaskEvents,
    channels: McpTaskChannels,
    errors: McpErrorMapper,
    telemetry: McpTelemetry,
  ) {
    this.services = { store, events, channels, errors, telemetry, maxResultBytes: options.maxTaskResultBytes };
  }

  /** The run of the call of `ctx`: nothing is written until it becomes a task (`TaskRun.attach`). */
  open(ctx: McpRequestContext): TaskRun {
    return new TaskRun(this.services, {
      era: ctx.era,
      method: ctx.method,
      principal: ctx.auth,
      link: taskEraOf(ctx.era).clientLink(ctx),
    });
  }
}
