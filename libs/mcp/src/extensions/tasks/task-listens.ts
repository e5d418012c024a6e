import { Injectable } from '@nestjs/common';
import { McpLogger } from '../../logging/mcp-logger.js';
import { isTerminalTaskStatus } from './store/mcp-task.store.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpTaskLookup } from './task-lookup.js';
import { McpTaskEvents } from './task-events.js';
import { detailedTask, MODERN_TASKS } from './modern-tasks.js';
import { McpTaskNotFoundException } from './task.exceptions.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** What a listen's `taskIds` filter asked, and what was honoured. */
export interface TaskListenFilter {
  /** The filter named at least one task. */
  readonly asked: boolean;
  /** The tasks of this caller among them: their status notifications are sent. */
  readonly honoured: string[];
}

/** Writes one notification on the listen's stream (stamped with its subscription id there). */
type Notify = (method: string, params: Record<string, unknown>) => void;

/**
 * The `taskIds` of a `subscriptions/listen` filter (tasks extension): `notifications/tasks`, each
 * with the `DetailedTask` as `tasks/get` would answer it then, on each change of status of the
 * caller's tasks among them, wherever the task runs (the change hints of `McpTaskEvents`, read
 * again from the store by the instance holding the listen). A task stops being followed once it
 * ended (after its last notification), and all of them when the listen ends.
 */
@Injectable()
export class McpTaskListens {
  private readonly logger = new McpLogger('McpTasks');

  constructor(
    @McpOptions('tasks') private readonly options: McpOptionGroup<'tasks'>,
    private readonly lookup: McpTaskLookup,
    private readonly events: McpTaskEvents,
  ) {}

  /**
   * Reads `notifications.taskIds`: `-32021` when the request does not declare the extension,
   * `-32602` when it is not a list of at most `maxListenUris` strings; the ids of tasks this
   * caller owns are honoured (others are left out, as unknown ones are).
   */
  async filter(value: unknown, ctx: McpRequestContext): Promise<TaskListenFilter> {
    MODERN_TASKS.admit(ctx.clientCapabilities);
    if (!Array.isArray(value) || value.some((id) => typeof id !== 'string')) {
      throw new McpInvalidParamsException("'notifications.taskIds' must be an array of task ids");
    }
    if (value.length > this.options.maxListenUris) {
      throw new McpInvalidParamsException(
        `'notifications.taskIds' names ${value.length} tasks; at most ${this.options.maxListenUris} per listen`,
      );
    }
    // Read together: with a shared store their lookups leave in one write.
    const ids = [...new Set(value as string[])];
    const owned = await Promise.all(
      ids.map((taskId) =>
        this.lookup.find(taskId, ctx).then(
          () => true,
          (error: unknown) => {
            if (error instanceof McpTaskNotFoundException) return false;
            throw error;
          },
        ),
      ),
    );
    return { asked: value.length > 0, honoured: ids.filter((_, i) => owned[i]) };
  }

  /** Sends the status notifications of `taskIds` through `notify` until the returned function is called. */
  follow(taskIds: readonly string[], ctx: McpRequestContext, notify: Notify): () => void {
    let open = true;
    const stops = new Map<string, () => void>();
    for (const taskId of taskIds) {
      // One read at a time per task, so notifications go out in the order of the changes.
      let reading = Promise.resolve();
      const stop = this.events.watch(taskId, () => {
        reading = reading.then(() => this.tell(taskId, ctx, notify, () => open, stops));
      });
      stops.set(taskId, stop);
    }
    return () => {
      open = false;
      for (const stop of stops.values()) stop();
      stops.clear();
    };
  }

  private async tell(
    taskId: string,
    ctx: McpRequestContext,
    notify: Notify,
    isOpen: () => boolean,
    stops: Map<string, () => void>,
  ): Promise<void> {
    // Ended already (its last notification went), or the listen ended.
    if (!stops.has(taskId) || !isOpen()) return;
    let record;
    try {
      record = await this.lookup.find(taskId, ctx);
    } catch (error) {
      if (!(error instanceof McpTaskNotFoundException))
        this.logger.warn(`Could not read task ${taskId.slice(0, 8)}… for a listen: ${String(error)}`);
      return;
    }
    if (!isOpen() || !stops.has(taskId)) return;
    notify('notifications/tasks', detailedTask(record));
    if (isTerminalTaskStatus(record.status)) {
      stops.get(taskId)?.();
      stops.delete(taskId);
    }
  }
}
