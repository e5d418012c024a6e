import type { Redis } from 'ioredis';
import {
  McpTaskCursorError,
  type McpTaskInputRequest,
  type McpTaskPage,
  type McpTaskRecord,
  type McpTaskSettlement,
  type McpTaskStatus,
  type McpTaskStore,
} from '@nest-mcp/server/backend';
import {
  TASK_ANSWER,
  TASK_ASK,
  TASK_CREATE,
  TASK_GET,
  TASK_LIST,
  TASK_REAP,
  TASK_SETTLE,
  TASK_SETTLE_INSTANCE,
  TASK_STATUS_MESSAGE,
  TASK_TAKE_ANSWERS,
  TASK_WITHDRAW,
} from './lua/tasks.lua.js';
import { guarded } from './redis-errors.js';

const SCRIPTS = {
  mcpTaskCreate: TASK_CREATE,
  mcpTaskGet: TASK_GET,
  mcpTaskStatusMessage: TASK_STATUS_MESSAGE,
  mcpTaskAsk: TASK_ASK,
  mcpTaskAnswer: TASK_ANSWER,
  mcpTaskTakeAnswers: TASK_TAKE_ANSWERS,
  mcpTaskWithdraw: TASK_WITHDRAW,
  mcpTaskSettle: TASK_SETTLE,
  mcpTaskList: TASK_LIST,
  mcpTaskSettleInstance: TASK_SETTLE_INSTANCE,
  mcpTaskReap: TASK_REAP,
} as const;

type ScriptClient = Record<keyof typeof SCRIPTS, (...args: (string | number)[]) => Promise<unknown>>;

/** Tasks failed at most by one look for orphans (a dead instance's next ones follow at the next look). */
const REAP_BUDGET = 500;

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
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    for (const [name, lua] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys: 0, lua });
  }

  async create(record: McpTaskRecord, maxActivePerCaller: number): Promise<boolean> {
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
    const created = await this.run<number>(
      'mcpTaskCreate',
      record.taskId,
      JSON.stringify(base),
      record.caller ?? '',
      record.instanceId,
      record.owner,
      record.createdAt,
      record.createdAt + record.ttlMs,
      record.lastUpdatedAt,
      maxActivePerCaller,
      record.statusMessage ?? '',
    );
    return created === 1;
  }

  async get(taskId: string): Promise<McpTaskRecord | undefined> {
    const fields = await this.run<string[] | null>('mcpTaskGet', taskId, Date.now());
    return fields ? recordOf(fields) : undefined;
  }

  async setStatusMessage(taskId: string, statusMessage: string, now: number): Promise<boolean> {
    return (await this.run<number>('mcpTaskStatusMessage', taskId, statusMessage, now)) === 1;
  }

  async ask(taskId: string, requests: Readonly<Record<string, McpTaskInputRequest>>, now: number): Promise<boolean> {
    const pairs = Object.entries(requests).flatMap(([key, request]) => [key, JSON.stringify(request)]);
    if (pairs.length === 0) return false;
    return (await this.run<number>('mcpTaskAsk', taskId, now, ...pairs)) === 1;
  }

  async answer(taskId: string, responses: Readonly<Record<string, unknown>>, now: number): Promise<string[]> {
    const pairs = Object.entries(responses).flatMap(([key, response]) => [key, JSON.stringify(response)]);
    if (pairs.length === 0) return [];
    return this.run<string[]>('mcpTaskAnswer', taskId, now, ...pairs);
  }

  async takeAnswers(taskId: string): Promise<Record<string, unknown>> {
    return parsePairs(await this.run<string[]>('mcpTaskTakeAnswers', taskId));
  }

  async withdraw(taskId: string, keys: readonly string[], now: number): Promise<boolean> {
    return (await this.run<number>('mcpTaskWithdraw', taskId, now, ...keys)) === 1;
  }

  async settle(taskId: string, settlement: McpTaskSettlement, now: number): Promise<McpTaskStatus | undefined> {
    const before = await this.run<McpTaskStatus | null>('mcpTaskSettle', taskId, ...settlementArgs(settlement, now));
    return before ?? undefined;
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<McpTaskPage> {
    const reply = await this.run<Array<string | number>>('mcpTaskList', owner, cursor ?? '', limit);
    if (reply[0] === 'cursor') throw new McpTaskCursorError(cursor ?? '');
    const [more, ...ids] = reply as [number, ...string[]];
    // One round trip per task, all written in this turn (one socket write).
    const records = (await Promise.all(ids.map((taskId) => this.get(taskId)))).filter(
      (record): record is McpTaskRecord => record !== undefined,
    );
    return more === 1 && ids.length > 0 ? { records, nextCursor: ids.at(-1) } : { records };
  }

  async settleInstance(instanceId: string, settlement: McpTaskSettlement, now: number): Promise<string[]> {
    const [status, message, , result, error] = settlementArgs(settlement, now);
    return this.run<string[]>('mcpTaskSettleInstance', instanceId, status, message, now, result, error);
  }

  async reapOrphans(now: number): Promise<string[]> {
    return this.run<string[]>('mcpTaskReap', now, REAP_BUDGET);
  }

  private run<T>(name: keyof typeof SCRIPTS, ...args: (string | number)[]): Promise<T> {
    const client = this.redis as unknown as ScriptClient;
    return guarded(client[name](this.prefix, ...args) as Promise<T>);
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

function recordOf([base, status, statusMessage, updated, result, error, ...requests]: string[]): McpTaskRecord {
  const record: McpTaskRecord = {
    ...(JSON.parse(base) as Base),
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
