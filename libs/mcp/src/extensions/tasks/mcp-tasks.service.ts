import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { McpLogger } from '../../logging/mcp-logger.js';
import { callerKeyOf } from '../../auth/caller-key.js';
import type { McpTaskLimits, McpTaskRecord, McpTaskStore } from './store/mcp-task.store.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import { principalDigest } from '../../model/mcp-principal.js';
import { supportsTasks, type McpTaskMode } from './task-era.js';
import { taskEraOf } from './task-eras.js';
import { McpToolRegistry, type McpToolEntry } from '../../registry/mcp-tool.registry.js';
import { taskLimitsOf } from './task-options.js';
import type { ChannelContext } from '../../context/channel-context.js';
import { TaskRequestChannel } from './task-request-channel.js';
import type { TaskOutcome, TaskRun } from './task-run.js';
import { McpTaskRunFactory } from './task-run-factory.js';
import { McpTaskRuns } from './task-runs.js';
import { TASKS_STORE } from './task-store.provider.js';
import { taskSupportOf } from './task-tools.js';

/** The shortest time to live a task gets, whatever the client asked. */
const MIN_TASK_TTL_MS = 1_000;

/** Runs the work of one call, with the context it should see. */
export type TaskWork = (context: McpRequestContext) => Promise<Record<string, unknown>>;

/**
 * Long-running tool calls as tasks, in both protocol eras, on any number of instances: which
 * calls become tasks, and their creation. Its neighbours do the rest: `McpTaskRuns` the
 * handlers running here and what reaches them from any instance (cancel, answers, the ends no
 * handler writes), `McpTaskLookup` a caller's tasks as the `tasks/*` methods see them,
 * `McpTaskRunFactory` the run of one call, `McpTaskChannels` its messages to a 2025-11-25 client.
 *
 * - Which calls: a tool declares `taskSupport`; its era's rules (`McpTaskEra.mode`) decide per
 *   call from what the tool allows and what the client asked (2025-11-25: `params.task`; tasks
 *   extension: the declared extension, and the call outlasting `tasks.handoffMs` in its request).
 * - Where they live: the task store (a backend seam), so any instance answers `tasks/get`,
 *   `tasks/cancel` and the result for any task; the handler runs on the instance that created
 *   the task, which alone writes its progress and its end.
 * - Who sees them: the principal that created a task (and in 2025-11-25 its session); anyone
 *   else is answered as for an unknown id.
 * - Bounds: `tasks.maxPerCaller` tasks running per caller (all instances together, checked by
 *   the store in the step that creates), `tasks.maxPerInstance` handlers running here, a time to
 *   live (asked, at most `tasks.maxTtlMs`) after which the handler is stopped and the task is gone
 *   everywhere, results of at most `tasks.maxResultBytes`.
 */
@Injectable()
export class McpTasks {
  private readonly logger = new McpLogger('McpTasks');
  /** What the store keeps per caller and in all. */
  private readonly limits: McpTaskLimits;
  /** A live count of the tools that support tasks. */
  private readonly taskTools: () => number;
  /** A live count of the tools that declare a `taskSupport` (2025-11-25 lists show it). */
  readonly declaringTools: () => number;

  constructor(
    @McpOptions('tasks') private readonly options: McpOptionGroup<'tasks'>,
    @Inject(TASKS_STORE) readonly store: McpTaskStore,
    tools: McpToolRegistry,
    private readonly runs: McpTaskRuns,
    private readonly runFactory: McpTaskRunFactory,
  ) {
    this.taskTools = tools.counter((tool) => supportsTasks(taskSupportOf(tool)));
    this.declaringTools = tools.counter((tool) => taskSupportOf(tool) !== undefined);
    this.limits = taskLimitsOf(options);
  }

  /** True when some tool supports tasks: the server then declares them. */
  get declared(): boolean {
    return this.taskTools() > 0;
  }

  /** Task handlers running on this instance. */
  get runningCount(): number {
    return this.runs.count;
  }

  /** How a `tools/call` of `tool` runs (the era's `McpTaskEra.mode`); throws the protocol error of a call the tool does not allow. */
  modeOf(tool: McpToolEntry, params: Record<string, unknown>, ctx: McpRequestContext): McpTaskMode {
    const support = taskSupportOf(tool);
    // A tool that supports tasks is proof enough that the server declares them.
    return taskEraOf(ctx.era).mode(
      support,
      params,
      ctx.clientCapabilities,
      () => supportsTasks(support) || this.declared,
    );
  }

  /**
   * Runs a call as a task (`mode.kind === 'task'`: created at once, answered with its
   * `CreateTaskResult`) or as a call that may become one (`handoff`: answered with its own result
   * if it ends within `tasks.handoffMs`, else created then). `work` runs the handler with the
   * context it gets; its outcome settles the task. `requiredScopes` (the tool's) are kept with the
   * task: its lookups need them as a call of the tool does.
   */
  async start(
    mode: McpTaskMode,
    ctx: ChannelContext,
    work: TaskWork,
    requiredScopes?: readonly string[],
  ): Promise<Record<string, unknown>> {
    const run = this.runFactory.open(ctx);
    this.runs.admit(run);
    // The handler's context, on the task's channel: the request's until the call is a task.
    let channel!: TaskRequestChannel;
    const context = ctx.through((own) => (channel = new TaskRequestChannel(own, run)));
    if (mode.kind === 'task') {
      let record: McpTaskRecord;
      try {
        channel.enterTask();
        record = await this.create(run, ctx, requiredScopes, mode.requestedTtlMs);
      } catch (error) {
        this.runs.release(run);
        run.notCreated(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
      this.follow(run, work(context));
      return run.rules.created(record);
    }
    const { working, first: opened } = this.handoffOrOutcome(() => work(context), channel, run);
    const first = await opened;
    if (first !== 'handoff') {
      this.runs.release(run);
      if (first.ok) return first.result;
      throw first.error;
    }
    channel.enterTask();
    let record: McpTaskRecord;
    try {
      record = await this.create(run, ctx, requiredScopes);
    } catch (error) {
      run.notCreated(error instanceof Error ? error : new Error(String(error)));
      void working.catch(() => undefined).finally(() => this.runs.release(run));
      throw error;
    }
    this.follow(run, working);
    return run.rules.created(record);
  }

  private async create(
    run: TaskRun,
    ctx: McpRequestContext,
    requiredScopes: readonly string[] | undefined,
    requestedTtlMs?: number,
  ): Promise<McpTaskRecord> {
    const now = Date.now();
    const ttlMs = Math.round(
      Math.min(this.options.maxTaskTtlMs, Math.max(MIN_TASK_TTL_MS, requestedTtlMs ?? this.options.taskTtlMs)),
    );
    const caller = callerKeyOf(ctx.auth, ctx.request);
    const random = randomBytes(18).toString('base64url');
    const record: McpTaskRecord = {
      // A store that places tasks by caller says where in the id.
      taskId: this.store.newTaskId?.(random, caller) ?? random,
      owner: taskEraOf(ctx.era).owner(principalDigest(ctx.auth), ctx.sessionId),
      ...(caller !== undefined ? { caller } : {}),
      ...(requiredScopes !== undefined && requiredScopes.length > 0 ? { requiredScopes: [...requiredScopes] } : {}),
      instanceId: this.runs.instanceId,
      era: ctx.era,
      // A task with a link to its session belongs to it (2025-11-25).
      ...(run.init.link?.sessionId !== undefined ? { sessionId: run.init.link.sessionId } : {}),
      status: 'working',
      ...(run.lastMessage !== undefined ? { statusMessage: run.lastMessage } : {}),
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.options.taskPollIntervalMs,
    };
    if (!(await this.store.create(record, this.limits))) {
      throw new McpCapacityException('tasksPerCaller', this.options.maxTasksPerPrincipal);
    }
    run.attach(record);
    this.runs.created(run);
    return record;
  }

  /** Settles the task with the handler's outcome, then lets the run go. */
  private follow(run: TaskRun, working: Promise<Record<string, unknown>>): void {
    void working
      .then(
        (result): TaskOutcome => ({ ok: true, result }),
        (error: unknown): TaskOutcome => ({ ok: false, error }),
      )
      .then((outcome) => run.finish(outcome))
      .catch((error: unknown) => this.logger.error(`Settling task ${run.taskId.slice(0, 8)}… failed: ${String(error)}`))
      .finally(() => this.runs.release(run));
  }

  /**
   * The handoff window: the call's outcome when it comes first, else `'handoff'`. The window
   * does not close while the call waits for an answer of its request's round (that round ends
   * it with `input_required` instead), nor after the request was dropped. The window opens
   * before the call starts: a handler may call `ctx.becomeTask()` before its first `await`.
   */
  private handoffOrOutcome(
    start: () => Promise<Record<string, unknown>>,
    channel: TaskRequestChannel,
    run: TaskRun,
  ): { working: Promise<Record<string, unknown>>; first: Promise<TaskOutcome | 'handoff'> } {
    let working!: Promise<Record<string, unknown>>;
    const first = new Promise<TaskOutcome | 'handoff'>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        clearTimeout(timer);
        if (channel.mayBecomeTask) resolve('handoff');
        else if (!run.signal.aborted) timer = setTimeout(check, this.options.taskHandoffMs);
      };
      // The handler may end the window itself (`ctx.becomeTask()`).
      run.handoffNow = check;
      timer = setTimeout(check, this.options.taskHandoffMs);
      const settled = (outcome: TaskOutcome) => {
        clearTimeout(timer);
        run.handoffNow = undefined;
        resolve(outcome);
      };
      try {
        working = start();
      } catch (error) {
        working = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      working.then(
        (result) => settled({ ok: true, result }),
        (error: unknown) => settled({ ok: false, error }),
      );
    });
    return { working, first };
  }
}
