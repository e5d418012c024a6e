import { McpLogger } from '../../logging/mcp-logger.js';
import {
  isTerminalTaskStatus,
  type McpTaskInputRequest,
  type McpTaskRecord,
  type McpTaskSettlement,
  type McpTaskStatus,
  type McpTaskStore,
} from './store/mcp-task.store.js';
import type { McpTaskContext } from '../../context/mcp-request-context.js';
import { McpClientUnreachableError } from '../../errors/client-request.errors.js';
import { passesLogLevel, type McpLogLevel } from '../../model/log-level.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import type { McpErrorMapper } from '../../protocol/mcp-error.mapper.js';
import type { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { ATTR_ASK_CHANNEL, ATTR_TASK_ID, describeAskFailure } from '../../protocol/ask-failure.js';
import type { McpTaskChannels } from './task-channels.js';
import type { McpTaskEvents } from './task-events.js';
import { McpTaskAbandonedError, McpTaskCancelledError } from './task.errors.js';
import { legacyTask, withRelatedTask } from './legacy-tasks.js';
import type { McpTaskAskRoutes, McpTaskClientLink, McpTaskEra } from './task-era.js';
import { taskEraOf } from './task-eras.js';
import type { McpEra } from '../../protocol/inbound/inbound.js';

/** How often a task waiting on the client's answers looks for them, in case their hint was lost. */
const ANSWER_POLL_MS = 5_000;

/** The short prefix of the input keys of each method, in call order (as in a multi round-trip request). */
const KEY_PREFIX: Record<McpTaskInputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** What a run needs from the module. */
export interface TaskRunServices {
  readonly store: McpTaskStore;
  readonly events: McpTaskEvents;
  readonly channels: McpTaskChannels;
  readonly errors: McpErrorMapper;
  /** Spans for the task's requests to the client. */
  readonly telemetry?: McpTelemetry;
  readonly maxResultBytes: number;
}

/** What the request that started it says about its client. */
export interface TaskRunInit {
  readonly era: McpEra;
  readonly method: string;
  readonly principal?: McpPrincipal;
  /** How the task reaches its client besides the task itself (2025-11-25: its session); its era's rules say. */
  readonly link?: McpTaskClientLink;
}

interface PendingAsk {
  resolve(answer: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** How the handler's work ended. */
export type TaskOutcome =
  { readonly ok: true; readonly result: Record<string, unknown> } | { readonly ok: false; readonly error: unknown };

/**
 * One handler running as a task on this instance: its signal, its writes to the store (status
 * message, input requests, its end) and its messages to the client. It exists from the start of
 * the call: a call of the tasks extension runs in its request first and becomes a task at the
 * handoff (`attach`); until then nothing is written.
 */
export class TaskRun {
  readonly controller = new AbortController();
  /** `request` until the call becomes a task (then its context acts as the task's). */
  phase: 'request' | 'task' = 'request';
  private record?: McpTaskRecord;
  private resolveCreated!: (created: boolean) => void;
  /** Whether the task exists in the store: every write waits for it. */
  private readonly created = new Promise<boolean>((resolve) => (this.resolveCreated = resolve));
  private readonly logger = new McpLogger('McpTasks');
  private lastProgress = -Infinity;
  private nextMessage?: string;
  private writingMessages?: Promise<void>;
  private readonly usedKeys = new Set<string>();
  private readonly asks = new Map<string, PendingAsk>();
  private batch?: Record<string, McpTaskInputRequest>;
  private answerPoll?: NodeJS.Timeout;
  private ttlTimer?: NodeJS.Timeout;
  private ended = false;
  /** `ctx.task` while it runs as a task. */
  readonly handle: McpTaskContext;
  /** The last progress message of the call while it ran in its request: the task's first status message. */
  lastMessage?: string;
  /** The task rules of its era. */
  readonly rules: McpTaskEra;
  /** The two ways to ask the client; the era picks one. */
  private readonly routes: McpTaskAskRoutes = {
    bySession: (key, request) => this.askBySession(key, request),
    byTask: (key, request) => this.askByTask(key, request),
  };

  constructor(
    private readonly services: TaskRunServices,
    readonly init: TaskRunInit,
  ) {
    this.rules = taskEraOf(init.era);
    const taskIdOf = () => this.taskId;
    this.handle = {
      get taskId() {
        return taskIdOf();
      },
      setStatusMessage: (message: string) => this.setStatusMessage(message),
    };
    this.controller.signal.addEventListener('abort', () => this.rejectAsks(), { once: true });
  }

  /** Resolves whether the task was created (`false`: the call never became one). */
  get whenCreated(): Promise<boolean> {
    return this.created;
  }

  /** Set while the call waits in its handoff window: ends the window now. */
  handoffNow?: () => void;

  get taskId(): string {
    return this.record?.taskId ?? '';
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The task as this instance last wrote it. */
  get current(): McpTaskRecord | undefined {
    return this.record;
  }

  /** The task exists in the store: writes may go, and its time to live runs. */
  attach(record: McpTaskRecord): void {
    this.phase = 'task';
    this.record = record;
    this.handoffNow = undefined;
    this.resolveCreated(true);
    const left = record.createdAt + record.ttlMs - Date.now();
    this.ttlTimer = setTimeout(
      () => this.controller.abort(new McpTaskAbandonedError("The task's time to live lapsed before it finished")),
      Math.max(0, left),
    );
    this.ttlTimer.unref();
  }

  /** The task could not be created: the handler is told to stop, and nothing is ever written. */
  notCreated(reason: Error): void {
    this.phase = 'task';
    this.resolveCreated(false);
    this.handoffNow = undefined;
    this.controller.abort(reason);
  }

  /** `tasks/cancel` reached this instance: the handler is told to stop (the store says cancelled already). */
  cancel(): void {
    this.controller.abort(new McpTaskCancelledError());
  }

  /**
   * Sets the status message. Coalesced: one write at a time, and while it is on its way only the
   * latest message waits; resolves once the messages set so far are written.
   */
  setStatusMessage(message: string): Promise<void> {
    this.nextMessage = message;
    return (this.writingMessages ??= this.writeMessages());
  }

  /**
   * Progress: the message becomes the status message; with a link to the client (2025-11-25) a
   * progress notification also goes to it (with the request's token, strictly increasing).
   */
  async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (message !== undefined) void this.setStatusMessage(message);
    const progressToken = this.init.link?.progressToken;
    if (progressToken === undefined || !(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    this.notify('notifications/progress', {
      progressToken,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    });
  }

  /** A log message to the client, over the task's link (2025-11-25), when the session's level lets it through. */
  async log(level: McpLogLevel, data: unknown, logger?: string): Promise<void> {
    const link = this.init.link;
    if (!link || !passesLogLevel(level, link.logLevel)) return;
    this.notify('notifications/message', { level, ...(logger !== undefined ? { logger } : {}), data });
  }

  /**
   * A notification of the task to its client over its link, with the related-task `_meta`
   * (2025-11-25); a task without a link (the tasks extension) has no channel for them, so they
   * are dropped.
   */
  notify(method: string, params?: Record<string, unknown>): void {
    const link = this.init.link;
    if (!link || this.ended) return;
    const json = JSON.stringify({ jsonrpc: '2.0', method, params: withRelatedTask(params, this.taskId) });
    if (!this.services.channels.deliver(this.taskId, link.sessionId, json, false)) {
      this.logger.debug(`Dropped ${method} of task ${this.taskId.slice(0, 8)}…: no stream to the client`);
    }
  }

  /**
   * Asks the client (elicitation, sampling, roots) and waits for its answer, the task
   * `input_required` meanwhile. Tasks extension: the request joins the task's `inputRequests`
   * and the answer comes with `tasks/update` (to any instance). 2025-11-25: the request is sent
   * with the related-task `_meta` on a stream of the client, and answered like any other.
   */
  async ask(
    method: McpTaskInputRequest['method'],
    params: Record<string, unknown>,
    key?: string,
  ): Promise<Record<string, unknown>> {
    this.signal.throwIfAborted();
    const id = this.keyFor(method, key);
    const ask = () => this.rules.ask(this.routes, id, { method, params });
    const telemetry = this.services.telemetry;
    if (!telemetry?.tracing) return ask();
    const attributes = { [ATTR_ASK_CHANNEL]: 'task', [ATTR_TASK_ID]: this.taskId };
    return telemetry.clientRequest(method, attributes, ask, describeAskFailure);
  }

  /** Answers arrived in the store (`tasks/update`): hands them to the asks that wait for them. */
  async collectAnswers(): Promise<void> {
    if (this.asks.size === 0 || !(await this.created)) return;
    let answers: Record<string, unknown>;
    try {
      answers = await this.services.store.takeAnswers(this.taskId);
    } catch (error) {
      this.logger.warn(`Could not read the answers of task ${this.taskId.slice(0, 8)}…: ${String(error)}`);
      return;
    }
    for (const [key, answer] of Object.entries(answers)) {
      const pending = this.asks.get(key);
      if (!pending) continue;
      this.asks.delete(key);
      pending.resolve(answer as Record<string, unknown>);
    }
    if (this.asks.size === 0) this.stopAnswerPoll();
  }

  /**
   * Writes how the handler ended (the status a 2025-11-25 `isError` result gets is `failed`; in
   * the tasks extension it is `completed`). A task that was cancelled, or ended without its
   * handler (time to live, shutdown), keeps that end: a terminal status never changes.
   */
  async finish(outcome: TaskOutcome): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.ttlTimer);
    this.stopAnswerPoll();
    this.rejectAsks();
    if (!(await this.created)) return;
    await this.settle(this.settlementOf(outcome));
    this.services.channels.forget(this.taskId);
  }

  /** Ends the task without its handler (shutdown): the handler is told to stop, the task fails. */
  async abandon(why: string): Promise<void> {
    const reason = new McpTaskAbandonedError(why);
    this.controller.abort(reason);
    await this.finish({ ok: false, error: reason });
  }

  private async settle(settlement: McpTaskSettlement): Promise<void> {
    let before: McpTaskStatus | undefined;
    try {
      before = await this.services.store.settle(this.taskId, settlement, Date.now());
    } catch (error) {
      this.logger.warn(`Could not write the end of task ${this.taskId.slice(0, 8)}…: ${String(error)}`);
      return;
    }
    if (before === undefined || isTerminalTaskStatus(before)) return;
    // What the store kept: a result past its caller's budget fails the task instead, and an ended
    // task's time to live shrinks to `tasks.resultTtlMs`.
    const stored = await this.services.store.get(this.taskId, { result: false }).catch(() => undefined);
    if (stored && this.record) this.record = { ...this.record, ttlMs: stored.ttlMs };
    this.changed(stored?.status ?? settlement.status, stored?.statusMessage ?? settlement.statusMessage);
  }

  private settlementOf(outcome: TaskOutcome): McpTaskSettlement {
    const reason: unknown = this.signal.reason;
    if (reason instanceof McpTaskCancelledError) return { status: 'cancelled' };
    const error = outcome.ok ? undefined : reason instanceof McpTaskAbandonedError ? reason : outcome.error;
    if (error instanceof McpTaskAbandonedError) return failure(-32603, 'Internal error', error.message);
    if (!outcome.ok) {
      const exception = this.services.errors.toException(error, this.init.method);
      return {
        status: 'failed',
        statusMessage: exception.detail ?? exception.message,
        error: exception.toJsonRpcError(),
      };
    }
    const json = JSON.stringify(outcome.result);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.services.maxResultBytes) {
      const detail = `The task's result is ${bytes} bytes, over the ${this.services.maxResultBytes} bytes this server keeps (tasks.maxResultBytes)`;
      this.logger.warn(`Task ${this.taskId.slice(0, 8)}…: ${detail}`);
      return failure(-32603, 'Result too large', detail);
    }
    // Plain JSON, as a shared store would give it back.
    const result = JSON.parse(json) as Record<string, unknown>;
    return this.rules.completion(result);
  }

  private async askByTask(key: string, request: McpTaskInputRequest): Promise<Record<string, unknown>> {
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => this.asks.set(key, { resolve, reject }));
    // Asks made together (Promise.all) are written together: the client sees them at once.
    const first = this.batch === undefined;
    (this.batch ??= {})[key] = request;
    if (first) setImmediate(() => void this.writeAsks());
    return answer;
  }

  private async writeAsks(): Promise<void> {
    const batch = this.batch ?? {};
    this.batch = undefined;
    let asked = false;
    try {
      asked = (await this.created) && (await this.services.store.ask(this.taskId, batch, Date.now()));
    } catch (error) {
      this.failAsks(Object.keys(batch), error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!asked) {
      this.failAsks(Object.keys(batch), this.stopReason());
      return;
    }
    this.changed('input_required');
    this.answerPoll ??= setInterval(() => void this.collectAnswers(), ANSWER_POLL_MS);
    this.answerPoll.unref();
  }

  private async askBySession(key: string, { method, params }: McpTaskInputRequest): Promise<Record<string, unknown>> {
    const sessionId = this.init.link?.sessionId;
    if (sessionId === undefined) {
      throw new McpClientUnreachableError(method, 'the task has no session through which to reach its client');
    }
    if (
      !(await this.created) ||
      !(await this.services.store.ask(this.taskId, { [key]: { method, params } }, Date.now()))
    ) {
      throw this.stopReason();
    }
    this.changed('input_required');
    try {
      return await this.services.channels.request(
        this.taskId,
        sessionId,
        method,
        withRelatedTask(params, this.taskId),
        {
          signal: this.signal,
          timeoutMs: Math.max(1, this.record!.createdAt + this.record!.ttlMs - Date.now()),
          principal: this.init.principal,
        },
      );
    } finally {
      const withdrawn = await this.services.store.withdraw(this.taskId, [key], Date.now()).catch(() => false);
      if (withdrawn && !this.ended) this.changed('working');
    }
  }

  /** A key never used before in this task (the extension: each one names one request for the task's whole life). */
  private keyFor(method: McpTaskInputRequest['method'], wanted: string | undefined): string {
    const base = wanted ?? KEY_PREFIX[method];
    let key = wanted !== undefined && !this.usedKeys.has(wanted) ? wanted : undefined;
    for (let n = this.usedKeys.size + 1; key === undefined; n++) {
      if (!this.usedKeys.has(`${base}-${n}`)) key = `${base}-${n}`;
    }
    this.usedKeys.add(key);
    return key;
  }

  private async writeMessages(): Promise<void> {
    try {
      while (this.nextMessage !== undefined) {
        if (!(await this.created)) return;
        const message = this.nextMessage;
        this.nextMessage = undefined;
        try {
          if (await this.services.store.setStatusMessage(this.taskId, message, Date.now())) {
            this.record = { ...this.record!, statusMessage: message, lastUpdatedAt: Date.now() };
          }
        } catch (error) {
          this.logger.warn(`Could not write the status of task ${this.taskId.slice(0, 8)}…: ${String(error)}`);
        }
      }
    } finally {
      this.writingMessages = undefined;
    }
  }

  /** The task's status changed (written by this instance): waiters everywhere and the session of its link (2025-11-25) hear it. */
  private changed(status: McpTaskStatus, statusMessage?: string): void {
    const record = this.record!;
    this.record = {
      ...record,
      status,
      lastUpdatedAt: Date.now(),
      ...(statusMessage !== undefined ? { statusMessage } : {}),
    };
    this.services.events.changed(this.taskId);
    const sessionId = this.init.link?.sessionId;
    if (sessionId !== undefined) {
      const json = JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/tasks/status',
        params: legacyTask(this.record),
      });
      this.services.channels.notifySession(sessionId, json);
    }
  }

  private stopReason(): Error {
    const reason: unknown = this.signal.reason;
    return reason instanceof Error ? reason : new McpTaskAbandonedError('The task has ended');
  }

  private failAsks(keys: readonly string[], error: Error): void {
    for (const key of keys) {
      const pending = this.asks.get(key);
      this.asks.delete(key);
      pending?.reject(error);
    }
  }

  private rejectAsks(): void {
    this.failAsks([...this.asks.keys()], this.stopReason());
    this.stopAnswerPoll();
  }

  private stopAnswerPoll(): void {
    clearInterval(this.answerPoll);
    this.answerPoll = undefined;
  }
}

const failure = (code: number, message: string, detail: string): McpTaskSettlement => ({
  status: 'failed',
  statusMessage: detail,
  error: { code, message, data: { detail } },
});
