import {
  Inject,
  Injectable,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { McpLogger } from '../../logging/mcp-logger.js';
import { randomBytes } from 'node:crypto';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { callerKeyOf } from '../../auth/caller-key.js';
import { InMemoryTaskStore } from '../../backend/in-memory/in-memory-task.store.js';
import { LocalInstanceMessaging } from '../../backend/in-memory/local-instance-messaging.js';
import { MCP_INSTANCE_MESSAGING, MCP_TASK_STORE } from '../../backend/mcp-backend.tokens.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import {
  isTerminalTaskStatus,
  ORPHANED_TASK,
  type McpTaskLimits,
  type McpTaskReadOptions,
  type McpTaskRecord,
  type McpTaskStore,
} from '../../backend/mcp-task.store.js';
import { McpClientRequests } from '../../client-requests/mcp-client-requests.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { principalDigest } from '../../model/mcp-principal.js';
import { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { ATTR_TASK_STATUS as TASK_STATUS } from '../../telemetry/semconv.js';
import { McpToolRegistry, type McpToolEntry } from '../../registry/mcp-tool.registry.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { McpTaskChannels } from './task-channels.js';
import { McpTaskEvents } from './task-events.js';
import { supportsTasks, type McpTaskMode } from '../../protocol/eras/task-era.js';
import { taskEraOf } from '../../protocol/eras/task-eras.js';
import { taskLimitsOf } from './task-options.js';
import { taskSupportOf } from './task-tools.js';
import { TaskRequestContext } from './task-request-context.js';
import { NO_RESULT, TaskResultCache } from './task-result-cache.js';
import { TaskRun, type TaskOutcome, type TaskRunServices } from './task-run.js';
import { McpTaskNotFoundException } from './task.errors.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** `tasks/cancel` routed to the instance that runs the task. */
const CANCEL_TOPIC = 'task-cancel';
/** `tasks/update` tells the instance that runs the task that answers wait for it in the store. */
const INPUT_TOPIC = 'task-input';
/** How often the tasks of instances that are gone are looked for (a shared store). */
export const ORPHAN_CHECK_MS = 5_000;
/** The shortest time to live a task gets, whatever the client asked. */
const MIN_TASK_TTL_MS = 1_000;
/** Longer task ids are unknown without asking the store. */
const MAX_TASK_ID_LENGTH = 128;
/** Orphaned tasks this instance remembers having announced (a bounded memory, cleared when full). */
const ANNOUNCED_ORPHANS = 1_000;

/** A read of a task without its result. */
const STATUS_ONLY = Object.freeze({ result: false });
/** Bytes of results an instance keeps for polls of ended tasks. */
const RESULT_CACHE_BYTES = 16 * 1024 * 1024;

/** Runs the work of one call, with the context it should see. */
export type TaskWork = (context: McpRequestContext) => Promise<Record<string, unknown>>;

/**
 * Long-running tool calls as tasks, in both protocol eras, on any number of instances.
 *
 * - Which calls: a tool declares `taskSupport`; `taskModeOf` decides per call from what the tool
 *   allows and what the client asked (2025-11-25: `params.task`; tasks extension: the declared
 *   extension, and the call outlasting `tasks.handoffMs` in its request).
 * - Where they live: the task store (a backend seam), so any instance answers `tasks/get`,
 *   `tasks/cancel` and the result for any task; the handler runs on the instance that created
 *   the task, which alone writes its progress and its end. `tasks/cancel` and the answers of
 *   `tasks/update` are routed to it (instance messaging).
 * - Who sees them: the principal that created a task (and in 2025-11-25 its session); anyone
 *   else is answered as for an unknown id.
 * - Bounds: `tasks.maxPerCaller` tasks running per caller (all instances together, checked by
 *   the store in the step that creates), `tasks.maxPerInstance` handlers running here, a time to
 *   live (asked, at most `tasks.maxTtlMs`) after which the handler is stopped and the task is gone
 *   everywhere, results of at most `tasks.maxResultBytes`.
 * - Ends: every task reaches a terminal status. A handler that returns or throws settles it;
 *   `tasks/cancel` cancels it; at a graceful shutdown the handlers get `tasks.shutdownGraceMs` to
 *   finish and the rest fail; a task whose instance died (`kill -9`) is failed by the shared store
 *   once that instance's liveness lapsed; an instance that restarts under the same id fails what
 *   its previous life left.
 */
@Injectable()
export class McpTasks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly store: McpTaskStore;
  private readonly logger = new McpLogger('McpTasks');
  /** Handlers running here as (or on their way to becoming) tasks: the instance's budget. */
  private readonly running = new Set<TaskRun>();
  /** Tasks running here, by id. */
  private readonly byId = new Map<string, TaskRun>();
  private readonly services: TaskRunServices;
  /** What the store keeps per caller and in all. */
  private readonly limits: McpTaskLimits;
  /** Results of ended tasks read lately, by task id (they never change). */
  private readonly results = new TaskResultCache(RESULT_CACHE_BYTES);
  private closing = false;
  private orphanTimer?: NodeJS.Timeout;
  private readonly announcedOrphans = new Set<string>();
  /** A live count of the tools that support tasks. */
  private readonly taskTools: () => number;
  /** Called when the last handler running here ended (a shutdown waits for it). */
  private onIdle?: () => void;

  constructor(
    @McpOptions('tasks') private readonly options: McpOptionGroup<'tasks'>,
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
    tools: McpToolRegistry,
    private readonly events: McpTaskEvents,
    private readonly channels: McpTaskChannels,
    sessions: McpSessionManager,
    clientRequests: McpClientRequests,
    errors: McpErrorMapper,
    telemetry: McpTelemetry,
    private readonly access: McpAccessPolicy,
    @Optional() @Inject(MCP_TASK_STORE) store?: McpTaskStore | null,
  ) {
    if (!store && !(messaging instanceof LocalInstanceMessaging)) {
      this.logger.warn(
        'The backend has no task store: tasks live in each process, so only the instance that created a task answers for it.',
      );
    }
    this.store = store ?? new InMemoryTaskStore();
    this.taskTools = tools.counter((tool) => supportsTasks(taskSupportOf(tool)));
    this.limits = taskLimitsOf(options);
    this.services = {
      store: this.store,
      events,
      channels,
      clientRequests,
      errors,
      telemetry,
      maxResultBytes: options.maxTaskResultBytes,
    };
    channels.useRunning((taskId) => this.byId.has(taskId));
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

  /** True when some tool supports tasks: the server then declares them. */
  get declared(): boolean {
    return this.taskTools() > 0;
  }

  /** Task handlers running on this instance. */
  get runningCount(): number {
    return this.running.size;
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
    ctx: McpRequestContext,
    work: TaskWork,
    requiredScopes?: readonly string[],
  ): Promise<Record<string, unknown>> {
    this.assertRoom();
    const run = new TaskRun(this.services, {
      era: ctx.era,
      method: ctx.method,
      principal: ctx.auth,
      link: taskEraOf(ctx.era).clientLink(ctx),
    });
    const context = new TaskRequestContext(ctx, run);
    this.running.add(run);
    if (mode.kind === 'task') {
      let record: McpTaskRecord;
      try {
        context.enterTask();
        record = await this.create(run, ctx, requiredScopes, mode.requestedTtlMs);
      } catch (error) {
        this.release(run);
        run.notCreated(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
      this.follow(run, work(context));
      return run.rules.created(record);
    }
    const working = work(context);
    const first = await this.handoffOrOutcome(working, context, run);
    if (first !== 'handoff') {
      this.release(run);
      if (first.ok) return first.result;
      throw first.error;
    }
    context.enterTask();
    let record: McpTaskRecord;
    try {
      record = await this.create(run, ctx, requiredScopes);
    } catch (error) {
      run.notCreated(error instanceof Error ? error : new Error(String(error)));
      void working.catch(() => undefined).finally(() => this.release(run));
      throw error;
    }
    this.follow(run, working);
    return run.rules.created(record);
  }

  /**
   * The task `taskId`, when the caller of `ctx` owns it; else `-32602` as for an unknown id. A
   * caller whose token lacks the scopes of the task's tool gets the 403 `insufficient_scope` a
   * call of the tool would get: the task's status and result are the tool's output. `read`
   * says whether the result is needed (a status poll leaves it out).
   */
  async find(taskId: unknown, ctx: McpRequestContext, read?: McpTaskReadOptions): Promise<McpTaskRecord> {
    if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) {
      throw new McpTaskNotFoundException();
    }
    // The status first, always: who may see it, and whether it still exists, are never cached.
    const record = await this.store.get(taskId, STATUS_ONLY);
    if (!record || record.owner !== this.ownerOf(ctx)) throw new McpTaskNotFoundException();
    this.access.assert(record, ctx);
    this.announceIfOrphaned(record);
    if (read?.result === false || record.result !== undefined) return record;
    if (record.status !== 'completed' && record.status !== 'failed') return record;
    return this.withResult(record);
  }

  /**
   * An ended task with its result. A result never changes once stored: it is read from the
   * store once per instance and kept (bounded in bytes), so polling a completed task reads its
   * status alone, whatever the size of its result.
   */
  private async withResult(record: McpTaskRecord): Promise<McpTaskRecord> {
    const cached = this.results.get(record.taskId);
    if (cached !== undefined) return cached === NO_RESULT ? record : { ...record, result: cached };
    const full = await this.store.get(record.taskId);
    if (!full) throw new McpTaskNotFoundException();
    this.results.set(record.taskId, full.result ?? NO_RESULT);
    return full;
  }

  /**
   * A shared store fails the task of a dead instance when it is read: the read that found it so
   * tells the waiters (a listen on any instance), once per task and instance, while it is recent.
   */
  private announceIfOrphaned(record: McpTaskRecord): void {
    if (record.status !== 'failed' || record.statusMessage !== ORPHANED_TASK.statusMessage) return;
    if (Date.now() - record.lastUpdatedAt > ORPHAN_CHECK_MS || this.announcedOrphans.has(record.taskId)) return;
    if (this.announcedOrphans.size >= ANNOUNCED_ORPHANS) this.announcedOrphans.clear();
    this.announcedOrphans.add(record.taskId);
    this.events.changed(record.taskId);
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

  /**
   * Who may see the tasks of this request's caller: the principal (resource-server mode), and in
   * the 2025-11-25 era the session too (`McpTaskEra.owner`).
   */
  ownerOf(ctx: Pick<McpRequestContext, 'auth' | 'era' | 'sessionId'>): string {
    return taskEraOf(ctx.era).owner(principalDigest(ctx.auth), ctx.sessionId);
  }

  /**
   * Whether the caller is someone in particular: a principal, or (2025-11-25) a session. Without
   * either, every anonymous caller shares one owner, so only a task's id tells tasks apart.
   */
  hasIdentity(ctx: Pick<McpRequestContext, 'auth' | 'era' | 'sessionId'>): boolean {
    return taskEraOf(ctx.era).identifies(principalDigest(ctx.auth), ctx.sessionId);
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

  private assertRoom(): void {
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
  }

  /** Whether the caller of `ctx` may see `record` in a list (it has the scopes of its tool). */
  visibleTo(ctx: McpRequestContext): (record: McpTaskRecord) => boolean {
    return this.access.visibleTo(ctx) ?? (() => true);
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
    const record: McpTaskRecord = {
      taskId: randomBytes(18).toString('base64url'),
      owner: this.ownerOf(ctx),
      ...(caller !== undefined ? { caller } : {}),
      ...(requiredScopes !== undefined && requiredScopes.length > 0 ? { requiredScopes: [...requiredScopes] } : {}),
      instanceId: this.messaging.instanceId,
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
    this.byId.set(record.taskId, run);
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
      .finally(() => this.release(run));
  }

  /** A handler ended: its place is free. */
  private release(run: TaskRun): void {
    this.running.delete(run);
    if (this.byId.get(run.taskId) === run) this.byId.delete(run.taskId);
    if (this.running.size === 0) this.onIdle?.();
  }

  /**
   * The handoff window: the call's outcome when it comes first, else `'handoff'`. The window
   * does not close while the call waits for an answer of its request's round (that round ends
   * it with `input_required` instead), nor after the request was dropped.
   */
  private handoffOrOutcome(
    working: Promise<Record<string, unknown>>,
    context: TaskRequestContext,
    run: TaskRun,
  ): Promise<TaskOutcome | 'handoff'> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        clearTimeout(timer);
        if (context.mayBecomeTask) resolve('handoff');
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
      working.then(
        (result) => settled({ ok: true, result }),
        (error: unknown) => settled({ ok: false, error }),
      );
    });
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
