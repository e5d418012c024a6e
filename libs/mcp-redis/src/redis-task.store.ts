import {
  McpBackendUnavailableError,
  McpTaskCursorError,
  type McpTaskLimits,
  type McpTaskReadOptions,
  type McpTaskInputRequest,
  type McpTaskPage,
  type McpTaskRecord,
  type McpTaskSettlement,
  type McpTaskStatus,
  type McpTaskStore,
} from '@nest-mcp/server/backend';
import { runAskingForKeys } from './asked-keys.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisScripts, ScriptName } from './redis-scripts.js';
import { TaskScriptKeys } from './task-script-keys.js';

/** Tasks failed, and lapsed tasks forgotten, at most by one look of a bucket (the rest at the next look). */
const REAP_BUDGET = 500;

/**
 * Calls of one operation at most on a cluster: each call after the first declares keys the one
 * before asked for (a task's caller accounts, the tasks an end removes to make room), or goes on
 * where the one before stopped (the tasks of an instance).
 */
const MAX_CALLS = 32;

/**
 * How long after its lease ended an instance is named to task reads (the looks for orphans, every
 * few seconds on every instance, fail its tasks meanwhile), and how many such instances at most.
 */
const GONE_WINDOW_MS = 60_000;
const GONE_KNOWN = 64;

/** Times a create takes a place in the global counter, at most, making room in between. */
const MAX_RESERVES = 4;

/** The fields of a record that never change, as stored in `b`. */
type Base = Pick<
  McpTaskRecord,
  | 'taskId'
  | 'owner'
  | 'caller'
  | 'requiredScopes'
  | 'instanceId'
  | 'era'
  | 'sessionId'
  | 'createdAt'
  | 'ttlMs'
  | 'pollIntervalMs'
>;

/** What a script that may change what is stored answered: its result, and what its bucket holds more. */
interface Changed<T> {
  readonly result: T;
  readonly tasks: number;
  readonly bytes: number;
}

/**
 * Tasks in Redis, spread over buckets (see lua/tasks.lua.ts for the keys): a task lives in its
 * caller's bucket, named in its id (`newTaskId`), so a poll is one `EVALSHA` in one slot, and the
 * caller's budget is checked and taken in the step that creates. The global bounds are a counter
 * of their own, where on a cluster a create (and an end, for its result's bytes) takes its place
 * first: never passed by concurrent creates in different buckets (on one Redis the create's and
 * the end's scripts check and update it in their own step: one call each). A terminal status is
 * never overwritten, a task is gone with its keys when its time to live lapses, and a task whose
 * instance's lease lapsed (`kill -9`) is failed by the next `reapOrphans` of any instance, or
 * sooner by a read from an instance that learnt it (see `lately`).
 */
export class RedisTaskStore implements McpTaskStore {
  private readonly keys: TaskScriptKeys;

  /** The instances lately gone, as last read from the leases (see `lately`). */
  private gone: readonly string[] = [];
  private goneReadAt = 0;
  private readingGone = false;

  constructor(
    private readonly scripts: RedisScripts,
    private readonly redisKeys: RedisKeys,
    /** How often the instances lately gone are read again, at most (the instances' heartbeat). */
    private readonly goneEveryMs = 5_000,
  ) {
    this.keys = new TaskScriptKeys(redisKeys);
  }

  /**
   * The instances whose lease ended lately (within `GONE_WINDOW_MS`), as known now: a read fails
   * their running tasks in its own step (the leases are in another slot, no task script reads
   * them). Read again in the background once `goneEveryMs` passed, while tasks are read: a task
   * whose instance died is failed by a read at most a heartbeat after its lease ended and was
   * learnt (and by the next look for orphans in any case). Never a call on a read's path.
   */
  private lately(): readonly string[] {
    const now = Date.now();
    if (!this.readingGone && now - this.goneReadAt >= this.goneEveryMs) {
      this.readingGone = true;
      this.scripts
        .run<string[]>(
          'mcpRecentlyGone',
          [this.redisKeys.leases, this.redisKeys.lastBeat, this.redisKeys.leaseGrace],
          GONE_WINDOW_MS,
          GONE_KNOWN,
        )
        .then(
          (gone) => {
            this.gone = gone;
            this.goneReadAt = Date.now();
          },
          () => undefined,
        )
        .finally(() => (this.readingGone = false));
    }
    return this.gone;
  }

  /** The task's bucket is its caller's, named in the id (see `RedisKeys.newTaskId`). */
  newTaskId(random: string, caller: string | undefined): string {
    return this.redisKeys.newTaskId(random, caller);
  }

  /**
   * Runs a task script. On a cluster a script that found keys it touches by reading others asks
   * for them (`{ -1, dn, db, n, key1..keyn, partial... }`, see lua/tasks.lua.ts) before it touches
   * them: it is run again with them declared, the partial results (tasks ended so far) gathered.
   * On one Redis no script asks: one call. A script that may change what is stored answers
   * `{ 0, dn, db, result... }`: what its buckets hold more, over every call, comes back with it.
   */
  private async call<T>(name: ScriptName, declared: string[], args: (string | number)[]): Promise<T> {
    return (await this.change<T>(name, declared, args, false)).result;
  }

  private async change<T>(
    name: ScriptName,
    declared: string[],
    args: (string | number)[],
    counted = true,
  ): Promise<Changed<T>> {
    const totals = [0, 0];
    const partial: string[] = [];
    const reply = await runAskingForKeys<unknown>((keys) => this.scripts.run<unknown>(name, keys, ...args), declared, {
      marker: -1,
      maxCalls: MAX_CALLS,
      exhausted: 'The task store changed under every attempt: retry',
      partial,
      totals,
      onExhausted: () => this.adjust(totals[0], totals[1]),
    });
    if (!counted || !Array.isArray(reply)) return { result: reply as T, tasks: totals[0], bytes: totals[1] };
    return {
      result: [...partial, ...(reply as string[]).slice(3)] as T,
      tasks: totals[0] + Number(reply[1]),
      bytes: totals[1] + Number(reply[2]),
    };
  }

  /** Takes places in the global counter: true when taken, else what it lacks ([tasks, bytes]). */
  private async reserve(tasks: number, bytes: number, limits?: McpTaskLimits): Promise<true | [number, number]> {
    const reply = await this.scripts.run<number[]>(
      'mcpTaskReserve',
      [this.redisKeys.taskCount],
      tasks,
      bytes,
      limits?.maxStored ?? '',
      limits?.maxStoredBytes ?? '',
    );
    return Number(reply[0]) === 1 ? true : [Number(reply[1]), Number(reply[2])];
  }

  /** Tells the global counter what the buckets hold more (less) than the places taken for it. */
  private async adjust(tasks: number, bytes: number): Promise<void> {
    if (tasks === 0 && bytes === 0) return;
    await this.scripts.run('mcpTaskAdjust', [this.redisKeys.taskCount], tasks, bytes);
  }

  async create(record: McpTaskRecord, limits: McpTaskLimits): Promise<boolean> {
    const base: Base = {
      taskId: record.taskId,
      owner: record.owner,
      ...(record.caller !== undefined ? { caller: record.caller } : {}),
      ...(record.requiredScopes !== undefined ? { requiredScopes: record.requiredScopes } : {}),
      instanceId: record.instanceId,
      era: record.era,
      ...(record.sessionId !== undefined ? { sessionId: record.sessionId } : {}),
      createdAt: record.createdAt,
      ttlMs: record.ttlMs,
      pollIntervalMs: record.pollIntervalMs,
    };
    const json = JSON.stringify(base);
    const size = Buffer.byteLength(json) + Buffer.byteLength(record.statusMessage ?? '');
    const expiresAt = record.createdAt + record.ttlMs;
    const ownedHere = this.keys.ownedHere(record.taskId, record.owner);
    for (let reserves = 1; reserves <= MAX_RESERVES; reserves++) {
      // On one Redis the create's script checks and updates the counter in its own step.
      const taken = this.redisKeys.clustered ? await this.reserve(1, size, limits) : false;
      const [lackTasks, lackBytes] = Array.isArray(taken) ? taken : [0, 0];
      const { result, tasks, bytes } = await this.change<number[]>(
        'mcpTaskCreate',
        this.keys.create(record.taskId, record.caller ?? '', record.owner),
        [
          record.taskId,
          json,
          record.caller ?? '',
          record.instanceId,
          record.createdAt,
          expiresAt,
          record.lastUpdatedAt,
          record.statusMessage ?? '',
          limits.maxPerCaller,
          limits.maxBytesPerCaller,
          limits.resultTtlMs,
          lackTasks,
          lackBytes,
          ownedHere ? record.owner : '',
          limits.maxStored,
          limits.maxStoredBytes,
        ],
      );
      await this.adjust(tasks - (taken === true ? 1 : 0), bytes - (taken === true ? size : 0));
      const outcome = Number(result[0]);
      if (outcome === 1 && ownedHere) return true;
      if (outcome === 1) {
        await this.call<number>('mcpTaskOwn', this.keys.owner(record.owner), [
          record.owner,
          record.taskId,
          record.createdAt,
          expiresAt,
          record.lastUpdatedAt,
        ]);
        return true;
      }
      if (outcome === 0) return false;
      if (outcome === 2) break;
      // 3: the caller's ended tasks made the room the counter lacked: take a place again.
    }
    throw new McpBackendUnavailableError('The task store is full: retry when some tasks have expired');
  }

  async get(taskId: string, options?: McpTaskReadOptions): Promise<McpTaskRecord | undefined> {
    const withResult = options?.result === false ? '0' : '1';
    const {
      result: fields,
      tasks,
      bytes,
    } = await this.change<string[]>('mcpTaskGet', this.keys.task(taskId), [
      taskId,
      Date.now(),
      withResult,
      ...this.lately(),
    ]);
    // A task failed as orphaned by this read: its error's bytes, counted without a place taken.
    await this.adjust(tasks, bytes);
    return fields.length > 0 ? recordOf(fields) : undefined;
  }

  async setStatusMessage(taskId: string, statusMessage: string, now: number): Promise<boolean> {
    const set = await this.call<number>('mcpTaskStatusMessage', this.keys.task(taskId), [taskId, statusMessage, now]);
    return set === 1;
  }

  async ask(taskId: string, requests: Readonly<Record<string, McpTaskInputRequest>>, now: number): Promise<boolean> {
    const pairs = Object.entries(requests).flatMap(([key, request]) => [key, JSON.stringify(request)]);
    if (pairs.length === 0) return false;
    return (await this.call<number>('mcpTaskAsk', this.keys.task(taskId), [taskId, now, ...pairs])) === 1;
  }

  async answer(taskId: string, responses: Readonly<Record<string, unknown>>, now: number): Promise<string[]> {
    const pairs = Object.entries(responses).flatMap(([key, response]) => [key, JSON.stringify(response)]);
    if (pairs.length === 0) return [];
    return this.call<string[]>('mcpTaskAnswer', this.keys.task(taskId), [taskId, now, ...pairs]);
  }

  async takeAnswers(taskId: string): Promise<Record<string, unknown>> {
    return parsePairs(await this.call<string[]>('mcpTaskTakeAnswers', this.keys.task(taskId), [taskId]));
  }

  async withdraw(taskId: string, keys: readonly string[], now: number): Promise<boolean> {
    return (await this.call<number>('mcpTaskWithdraw', this.keys.task(taskId), [taskId, now, ...keys])) === 1;
  }

  /**
   * On a cluster, takes the bytes of the end in the global counter first (no room there: the task
   * fails with `RESULT_NOT_KEPT`), then ends the task in its bucket, then gives back what was not
   * used; on one Redis the script does all of it in one step.
   */
  async settle(taskId: string, settlement: McpTaskSettlement, now: number): Promise<McpTaskStatus | undefined> {
    const args = settlementArgs(settlement, now);
    const size = Buffer.byteLength(args[1]) + Buffer.byteLength(args[3]) + Buffer.byteLength(args[4]);
    // On one Redis the settle's script checks and updates the counter in its own step.
    const roomy = this.redisKeys.clustered && (await this.reserve(0, size)) === true;
    const { result, tasks, bytes } = await this.change<McpTaskStatus[]>('mcpTaskSettle', this.keys.task(taskId), [
      taskId,
      ...args,
      roomy ? '1' : '0',
    ]);
    await this.adjust(tasks, bytes - (roomy ? size : 0));
    return result[0];
  }

  /**
   * The owner's index (in its bucket) names the page's tasks, each then read in its own bucket:
   * the entries of tasks removed before their time (to make room) are left out, so a page may
   * hold fewer than `limit` (an entry leaves the index when its time to live lapses).
   */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<McpTaskPage> {
    const reply = await this.call<Array<string | number>>('mcpTaskList', this.keys.owner(owner), [
      owner,
      cursor ?? '',
      limit,
      Date.now(),
    ]);
    if (reply[0] === 'cursor') throw new McpTaskCursorError(cursor ?? '');
    const [more, ...ids] = reply as [number, ...string[]];
    // One round trip per task, all written in this turn (one socket write).
    const records = (await Promise.all(ids.map((taskId) => this.get(taskId, { result: false })))).filter(
      (record): record is McpTaskRecord => record !== undefined,
    );
    return Number(more) === 1 && ids.length > 0 ? { records, nextCursor: ids.at(-1) } : { records };
  }

  /** One call per bucket (at startup only). */
  async settleInstance(instanceId: string, settlement: McpTaskSettlement, now: number): Promise<string[]> {
    const [status, message, , result, error] = settlementArgs(settlement, now);
    const settled = await Promise.all(
      this.redisKeys.allTaskBuckets().map(async (_, bucket) => {
        const changed = await this.change<string[]>('mcpTaskSettleInstance', this.keys.bucket(bucket), [
          instanceId,
          status,
          message,
          now,
          result,
          error,
        ]);
        await this.adjust(changed.tasks, changed.bytes);
        return changed.result;
      }),
    );
    return settled.flat();
  }

  /**
   * One look of every bucket (one call each, in parallel): what lapsed leaves the global counter,
   * and the instances with running tasks are named; then the leases say which of them are gone,
   * and the buckets that hold their tasks fail them (one more call each, only then).
   */
  async reapOrphans(now: number): Promise<string[]> {
    const buckets = this.redisKeys.allTaskBuckets().map((_, bucket) => bucket);
    const looks = await Promise.all(buckets.map((bucket) => this.look(bucket, now, [])));
    const instances = [...new Set(looks.flatMap((look) => look.instances))];
    if (instances.length === 0) return [];
    const gone = new Set(
      await this.scripts.run<string[]>(
        'mcpDeadInstances',
        [this.redisKeys.leases, this.redisKeys.lastBeat, this.redisKeys.leaseGrace],
        ...instances,
      ),
    );
    if (gone.size === 0) return [];
    const reaped = await Promise.all(
      buckets
        .filter((bucket) => looks[bucket].instances.some((instance) => gone.has(instance)))
        .map(async (bucket) => (await this.look(bucket, now, [...gone])).failed),
    );
    return reaped.flat();
  }

  /** One look of a bucket (see TASK_REAP): the tasks of the instances `gone` failed. */
  private async look(
    bucket: number,
    now: number,
    gone: readonly string[],
  ): Promise<{ failed: string[]; instances: string[] }> {
    const { result, tasks, bytes } = await this.change<Array<string | number>>(
      'mcpTaskReap',
      this.keys.bucket(bucket),
      [now, REAP_BUDGET, ...gone],
    );
    await this.adjust(tasks, bytes);
    // [ids failed before asking..., n, the n ids failed, instances...]: the ids are strings.
    const index = result.findIndex((value) => typeof value === 'number');
    const count = Number(result[index]);
    const ids = result.map(String);
    return {
      failed: [...ids.slice(0, index), ...ids.slice(index + 1, index + 1 + count)],
      instances: ids.slice(index + 1 + count),
    };
  }
}

function settlementArgs(settlement: McpTaskSettlement, now: number): [string, string, number, string, string] {
  return [
    settlement.status,
    settlement.statusMessage ?? '',
    now,
    settlement.result !== undefined ? JSON.stringify(settlement.result) : '',
    settlement.error !== undefined ? JSON.stringify(settlement.error) : '',
  ];
}

function recordOf([base, status, statusMessage, updated, result, error, expiry, ...requests]: string[]): McpTaskRecord {
  const fixed = JSON.parse(base) as Base;
  const record: McpTaskRecord = {
    ...fixed,
    // Brought forward when it ended (`tasks.resultTtlMs`): the time to live says when it is gone.
    ttlMs: Number(expiry) - fixed.createdAt,
    status: status as McpTaskStatus,
    lastUpdatedAt: Number(updated),
    ...(statusMessage !== '' ? { statusMessage } : {}),
    ...(requests.length > 0 ? { inputRequests: parsePairs(requests) as Record<string, McpTaskInputRequest> } : {}),
    ...(result !== '' ? { result: JSON.parse(result) as Record<string, unknown> } : {}),
    ...(error !== '' ? { error: JSON.parse(error) as McpTaskRecord['error'] } : {}),
  };
  return record;
}

function parsePairs(flat: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = JSON.parse(flat[i + 1]);
  return out;
}
