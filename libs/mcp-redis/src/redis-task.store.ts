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

/** Tasks failed at most by one look for orphans (a dead instance's next ones follow at the next look). */
const REAP_BUDGET = 500;

/**
 * Calls of one operation at most on a cluster: each call after the first declares keys the one
 * before asked for (a task's caller accounts, the tasks an end removes to make room, the tasks of
 * an index), or goes on where the one before stopped (the tasks of an instance).
 */
const MAX_CALLS = 32;

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

/**
 * Tasks in Redis (see lua/tasks.lua.ts for the keys): one script per operation, so one round
 * trip each (a poll is one `EVALSHA`), and every rule of `McpTaskStore` holds atomically: the
 * caller's budget is checked and taken in the step that creates, a terminal status is never
 * overwritten, a task is gone with its keys when its time to live lapses, and a task whose
 * instance's liveness key lapsed (`kill -9`) is failed by the next read of it or by the next
 * `reapOrphans` of any instance.
 */
export class RedisTaskStore implements McpTaskStore {
  private readonly keys: TaskScriptKeys;

  constructor(
    private readonly scripts: RedisScripts,
    keys: RedisKeys,
  ) {
    this.keys = new TaskScriptKeys(keys);
  }

  /**
   * Runs a task script. On a cluster a script that found keys it touches by reading others asks
   * for them (`{ -1, n, key1..keyn, partial... }`, see lua/tasks.lua.ts) before it touches them:
   * it is run again with them declared, the partial results (tasks ended so far) gathered. On one
   * Redis no script asks: one call.
   */
  private async call<T>(
    name: ScriptName,
    declared: string[],
    args: (string | number)[],
    partial?: string[],
  ): Promise<T> {
    return runAskingForKeys<T>((keys) => this.scripts.run<unknown>(name, keys, ...args), declared, {
      marker: -1,
      maxCalls: MAX_CALLS,
      exhausted: 'The task store changed under every attempt: retry',
      partial,
    });
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
    const created = await this.call<number>(
      'mcpTaskCreate',
      this.keys.create(record.taskId, record.caller ?? '', record.owner),
      [
        record.taskId,
        JSON.stringify(base),
        record.caller ?? '',
        record.instanceId,
        record.owner,
        record.createdAt,
        record.createdAt + record.ttlMs,
        record.lastUpdatedAt,
        record.statusMessage ?? '',
        limits.maxPerCaller,
        limits.maxBytesPerCaller,
        limits.maxStored,
        limits.maxStoredBytes,
        limits.resultTtlMs,
      ],
    );
    if (created === 2)
      throw new McpBackendUnavailableError('The task store is full: retry when some tasks have expired');
    return created === 1;
  }

  async get(taskId: string, options?: McpTaskReadOptions): Promise<McpTaskRecord | undefined> {
    const withResult = options?.result === false ? '0' : '1';
    const fields = await this.call<string[] | null>('mcpTaskGet', this.keys.task(taskId), [
      taskId,
      Date.now(),
      withResult,
    ]);
    return fields ? recordOf(fields) : undefined;
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

  async settle(taskId: string, settlement: McpTaskSettlement, now: number): Promise<McpTaskStatus | undefined> {
    const before = await this.call<McpTaskStatus | null>('mcpTaskSettle', this.keys.task(taskId), [
      taskId,
      ...settlementArgs(settlement, now),
    ]);
    return before ?? undefined;
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<McpTaskPage> {
    const reply = await this.call<Array<string | number>>('mcpTaskList', this.keys.list(owner), [
      owner,
      cursor ?? '',
      limit,
    ]);
    if (reply[0] === 'cursor') throw new McpTaskCursorError(cursor ?? '');
    const [more, ...ids] = reply as [number, ...string[]];
    // One round trip per task, all written in this turn (one socket write).
    const records = (await Promise.all(ids.map((taskId) => this.get(taskId, { result: false })))).filter(
      (record): record is McpTaskRecord => record !== undefined,
    );
    return more === 1 && ids.length > 0 ? { records, nextCursor: ids.at(-1) } : { records };
  }

  async settleInstance(instanceId: string, settlement: McpTaskSettlement, now: number): Promise<string[]> {
    const [status, message, , result, error] = settlementArgs(settlement, now);
    const settled: string[] = [];
    const rest = await this.call<string[]>(
      'mcpTaskSettleInstance',
      this.keys.all(),
      [instanceId, status, message, now, result, error],
      settled,
    );
    return [...settled, ...rest];
  }

  async reapOrphans(now: number): Promise<string[]> {
    const failed: string[] = [];
    const rest = await this.call<string[]>('mcpTaskReap', this.keys.all(), [now, REAP_BUDGET], failed);
    return [...failed, ...rest];
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
