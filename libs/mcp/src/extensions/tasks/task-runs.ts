import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { McpLogger } from '../../logging/mcp-logger.js';
import { MCP_INSTANCE_MESSAGING } from '../../backend/mcp-backend.tokens.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import { isTerminalTaskStatus, type McpTaskRecord, type McpTaskStore } from './store/mcp-task.store.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { ATTR_TASK_STATUS as TASK_STATUS } from '../../telemetry/semconv.js';
import { McpTaskEvents } from './task-events.js';
import { TASKS_STORE } from './task-store.provider.js';

/** `tasks/cancel` routed to the instance that runs the task. */
const CANCEL_TOPIC = 'task-cancel';
/** `tasks/update` tells the instance that runs the task that answers wait for it in the store. */
const INPUT_TOPIC = 'task-input';
/** How often the tasks of instances that are gone are looked for (a shared store). */
export const ORPHAN_CHECK_MS = 5_000;

/** What this instance's budget and routing need of a run (`TaskRun`). */
interface TaskRun {
  readonly taskId: string;
  readonly init: { readonly link?: { readonly sessionId?: string } };
  /** The task as this instance last wrote it. */
  readonly current?: Pick<McpTaskRecord, 'status'>;
  cancel(): void;
  collectAnswers(): Promise<void>;
  abandon(why: string): Promise<void>;
}

/**
 * The task handlers running on this instance, and what reaches them from any instance:
 * - their budget (`tasks.maxPerInstance`, none while shutting down) and the `tasks` gauge;
 * - `tasks/cancel` and the answers of `tasks/update`, written to the store and routed to the
 *   instance that runs the task (instance messaging), which alone tells its handler;
 * - their ends that no handler writes: the session of a 2025-11-25 task ending, a graceful
 *   shutdown (`tasks.shutdownGraceMs` to finish, then failed), what an earlier life of this
 *   instance left, and the tasks of instances that are gone (a shared store).
 */
@Injectable()
export class McpTaskRuns implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new McpLogger('McpTasks');
  /** Handlers running here as (or on their way to becoming) tasks: the instance's budget. */
  private readonly running = new Set<TaskRun>();
  /** Tasks running here, by id. */
  private readonly byId = new Map<string, TaskRun>();
  private closing = false;
  private orphanTimer?: NodeJS.Timeout;
  /** Called when the last handler running here ended (a shutdown waits for it). */
  private onIdle?: () => void;

  constructor(
    @McpOptions('tasks') private readonly options: McpOptionGroup<'tasks'>,
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
    @Inject(TASKS_STORE) private readonly store: McpTaskStore,
    private readonly events: McpTaskEvents,
    sessions: McpSessionManager,
    telemetry: McpTelemetry,
  ) {
    messaging.on(CANCEL_TOPIC, (payload) => this.byId.get(taskIdOf(payload))?.cancel());
    messaging.on(INPUT_TOPIC, (payload) => void this.byId.get(taskIdOf(payload))?.collectAnswers());
    telemetry.gauge(
      'tasks',
      "Tasks whose handler runs on this instance now, by the status this instance last wrote (other instances' tasks are theirs to report).",
      '{task}',
      (observe) => {
        let working = 0;
        let inputRequired = 0;
        for (const run of this.running) {
          const status = run.current?.status;
          if (status === 'working') working += 1;
          else if (status === 'input_required') inputRequired += 1;
        }
        observe(working, { [TASK_STATUS]: 'working' });
        observe(inputRequired, { [TASK_STATUS]: 'input_required' });
      },
    );
    // A 2025-11-25 task belongs to its session: it stops when the session ends.
    sessions.onSessionEnd((sessionId) => {
      for (const run of this.running) if (run.init.link?.sessionId === sessionId) void run.abandon('The session ended');
    });
  }

  /** This instance, as the tasks it creates name it. */
  get instanceId(): string {
    return this.messaging.instanceId;
  }

  /** Task handlers running on this instance. */
  get count(): number {
    return this.running.size;
  }

  /** Whether the task runs here. */
  has(taskId: string): boolean {
    return this.byId.has(taskId);
  }

  /** A handler starts here, within the instance's budget: else the capacity error that answers the call. */
  admit(run: TaskRun): void {
    if (this.closing)
      throw new McpCapacityException(
        'taskHandlers',
        undefined,
        'This server instance is shutting down: retry the call',
      );
    const limit = this.options.maxTasksPerInstance;
    if (this.running.size >= limit) {
      throw new McpCapacityException('taskHandlers', limit);
    }
    this.running.add(run);
  }

  /** The run's task exists: cancellations and answers for it reach it here. */
  created(run: TaskRun): void {
    this.byId.set(run.taskId, run);
  }

  /** A handler ended: its place is free. */
  release(run: TaskRun): void {
    this.running.delete(run);
    if (this.byId.get(run.taskId) === run) this.byId.delete(run.taskId);
    if (this.running.size === 0) this.onIdle?.();
  }

  /**
   * Cancels a task that has not ended: `cancelled` in the store first (so every instance answers
   * so at once), then its handler is told to stop, wherever it runs. Resolves to the task after
   * the cancel (with the status it kept when it had ended meanwhile: nothing changed), undefined
   * when it vanished meanwhile.
   */
  async cancel(record: McpTaskRecord): Promise<McpTaskRecord | undefined> {
    if (isTerminalTaskStatus(record.status)) return record;
    const now = Date.now();
    const statusMessage = 'The task was cancelled by request';
    const before = await this.store.settle(record.taskId, { status: 'cancelled', statusMessage }, now);
    if (before === undefined) return undefined;
    if (isTerminalTaskStatus(before)) return { ...record, status: before };
    this.events.changed(record.taskId);
    if (record.instanceId === this.messaging.instanceId) this.byId.get(record.taskId)?.cancel();
    else this.messaging.send(record.instanceId, CANCEL_TOPIC, { taskId: record.taskId });
    const cancelled: McpTaskRecord = { ...record, status: 'cancelled', statusMessage, lastUpdatedAt: now };
    return cancelled;
  }

  /**
   * Hands the client's answers (`tasks/update`) to the task: the store keeps those for its
   * outstanding requests, and the instance that runs it is told to collect them.
   */
  async answer(record: McpTaskRecord, responses: Record<string, unknown>): Promise<void> {
    const taken = await this.store.answer(record.taskId, responses, Date.now());
    if (taken.length === 0) return;
    this.events.changed(record.taskId);
    if (record.instanceId === this.messaging.instanceId) void this.byId.get(record.taskId)?.collectAnswers();
    else this.messaging.send(record.instanceId, INPUT_TOPIC, { taskId: record.taskId });
  }

  /** What an instance of the same id left running in an earlier life fails now; orphans are looked for from now on. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.store.reapOrphans) {
      this.orphanTimer = setInterval(() => void this.reapOrphans(), ORPHAN_CHECK_MS);
      this.orphanTimer.unref();
    }
    try {
      const left = await this.store.settleInstance(
        this.messaging.instanceId,
        abandonedSettlement('The server instance running this task restarted before it finished'),
        Date.now(),
      );
      for (const taskId of left) this.events.changed(taskId);
    } catch (error) {
      this.logger.warn(`Could not settle the tasks an earlier life of this instance left: ${String(error)}`);
    }
  }

  /**
   * A graceful shutdown: no new task; the handlers running here get `tasks.shutdownGraceMs` to
   * finish, then are told to stop and their tasks fail, so none is left `working`.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.orphanTimer);
    if (this.running.size === 0) return;
    await this.drained(this.options.taskShutdownGraceMs);
    await Promise.all([...this.running].map((run) => run.abandon('The server shut down before the task finished')));
  }

  /** Fails the tasks of instances that are gone (a shared store) and tells their waiters. */
  async reapOrphans(): Promise<void> {
    try {
      const failed = (await this.store.reapOrphans?.(Date.now())) ?? [];
      for (const taskId of failed) this.events.changed(taskId);
    } catch (error) {
      this.logger.debug(`Looking for orphaned tasks failed: ${String(error)}`);
    }
  }

  /** Resolves when no task handler runs here any more, or after `graceMs`. */
  private drained(graceMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, graceMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.onIdle = done;
    }).finally(() => (this.onIdle = undefined));
  }
}

const taskIdOf = (payload: unknown): string => {
  const taskId = (payload as { taskId?: unknown } | null)?.taskId;
  return typeof taskId === 'string' ? taskId : '';
};

const abandonedSettlement = (detail: string) =>
  ({
    status: 'failed',
    statusMessage: detail,
    error: { code: -32603, message: 'Internal error', data: { detail } },
  }) as const;
