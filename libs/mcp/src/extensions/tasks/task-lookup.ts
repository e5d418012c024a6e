import { Inject, Injectable } from '@nestjs/common';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import {
  isTerminalTaskStatus,
  McpTaskCursorError,
  ORPHANED_TASK,
  type McpTaskReadOptions,
  type McpTaskRecord,
  type McpTaskStore,
} from './store/mcp-task.store.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import { principalDigest } from '../../model/mcp-principal.js';
import { taskEraOf } from './task-eras.js';
import { McpRequestCancelledError } from '../../protocol/inflight-requests.js';
import { McpTaskChannels } from './task-channels.js';
import { McpTaskEvents } from './task-events.js';
import { NO_RESULT, TaskResultCache } from './task-result-cache.js';
import { ORPHAN_CHECK_MS } from './task-runs.js';
import { TASKS_STORE } from './task-store.provider.js';
import { McpTaskNotFoundException } from './task.exceptions.js';

/** Longer task ids are unknown without asking the store. */
const MAX_TASK_ID_LENGTH = 128;
/** Orphaned tasks this instance remembers having announced (a bounded memory, cleared when full). */
const ANNOUNCED_ORPHANS = 1_000;
/** A read of a task without its result. */
const STATUS_ONLY = Object.freeze({ result: false });
/** Bytes of results an instance keeps for polls of ended tasks. */
const RESULT_CACHE_BYTES = 16 * 1024 * 1024;
/** The least time between two reads of a task a `tasks/result` waits on, when no change hint came. */
const MIN_RESULT_POLL_MS = 1_000;

/**
 * Why a `tasks/result` stopped waiting: a cancellation or a protocol error as it is; anything
 * else (its session ended, the server shuts down) is a cancelled request, which nothing could
 * answer anyway, not an internal error.
 */
function waitEnded(reason: unknown): Error {
  if (reason instanceof McpRequestCancelledError || reason instanceof McpException) return reason;
  return new McpRequestCancelledError(reason instanceof Error ? reason.message : undefined);
}

/**
 * A caller's tasks, as the `tasks/*` methods and listens see them, on any instance: one task by
 * id (the caller's own, under the scopes of its tool), a page of them, and the wait of a
 * 2025-11-25 `tasks/result` until one ends. Results of ended tasks are kept here (they never
 * change), and a read that finds the task of a dead instance failed tells its waiters.
 */
@Injectable()
export class McpTaskLookup {
  /** Results of ended tasks read lately, by task id (they never change). */
  private readonly results = new TaskResultCache(RESULT_CACHE_BYTES);
  private readonly announcedOrphans = new Set<string>();

  constructor(
    @McpOptions('tasks') private readonly options: McpOptionGroup<'tasks'>,
    @Inject(TASKS_STORE) private readonly store: McpTaskStore,
    private readonly access: McpAccessPolicy,
    private readonly events: McpTaskEvents,
    private readonly channels: McpTaskChannels,
  ) {}

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
   * Who may see the tasks of this request's caller: the principal (resource-server mode), and in
   * the 2025-11-25 era the session too (`McpTaskEra.owner`).
   */
  ownerOf(ctx: Pick<McpRequestContext, 'auth' | 'era' | 'sessionId'>): string {
    return taskEraOf(ctx.era).owner(principalDigest(ctx.auth), ctx.sessionId);
  }

  /**
   * A page of the caller's tasks it may see (it has the scopes of their tools), in the shape of
   * its era. With neither a principal nor a session every anonymous caller has the same owner:
   * there is nothing to list by, and the task id stays the only handle on a task.
   */
  async list(cursor: string | undefined, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const era = taskEraOf(ctx.era);
    if (!era.identifies(principalDigest(ctx.auth), ctx.sessionId)) return { tasks: [] };
    try {
      const page = await this.store.list(this.ownerOf(ctx), cursor, this.options.pageSize);
      const visible = this.access.visibleTo(ctx) ?? (() => true);
      const result: Record<string, unknown> = { tasks: page.records.filter(visible).map(era.polled) };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      return result;
    } catch (error) {
      if (error instanceof McpTaskCursorError) throw new McpInvalidParamsException(error.message);
      throw error;
    }
  }

  /**
   * The task once it ended, read again on each change hint (and now and then without one); its
   * messages meanwhile go to `send` when the request has a stream for them (2025-11-25
   * `tasks/result`).
   */
  async untilEnded(
    record: McpTaskRecord,
    ctx: McpRequestContext,
    send: ((json: string) => boolean) | undefined,
  ): Promise<McpTaskRecord> {
    if (isTerminalTaskStatus(record.status)) return record;
    const close = send ? this.channels.open(record.taskId, record.instanceId, send) : undefined;
    try {
      const pollMs = Math.max(MIN_RESULT_POLL_MS, record.pollIntervalMs * 5);
      while (!isTerminalTaskStatus(record.status)) {
        await this.changeOf(record.taskId, ctx.signal, pollMs);
        record = await this.find(record.taskId, ctx);
      }
      return record;
    } finally {
      close?.();
    }
  }

  /** Resolves on the next change hint of the task, or after `pollMs`; rejects when `signal` aborts. */
  private changeOf(taskId: string, signal: AbortSignal, pollMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const cleanUp = () => {
        clearTimeout(timer);
        stopWatching();
        signal.removeEventListener('abort', aborted);
      };
      const done = () => {
        cleanUp();
        resolve();
      };
      const aborted = () => {
        cleanUp();
        reject(waitEnded(signal.reason));
      };
      const timer = setTimeout(done, pollMs);
      const stopWatching = this.events.watch(taskId, done);
      if (signal.aborted) aborted();
      else signal.addEventListener('abort', aborted, { once: true });
    });
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
}
