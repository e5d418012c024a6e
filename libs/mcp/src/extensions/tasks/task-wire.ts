import type { McpTaskRecord } from '../../backend/mcp-task.store.js';
import { RawJson } from '../../model/raw-json.js';
import { RESULT_TYPE, type TypedResult } from '../../model/result-type.js';

/** The identifier of the tasks extension (MCP 2026-07-28 era). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `_meta` key that ties a message of the 2025-11-25 era to its task. */
export const META_RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A task's wire shapes in both eras: the same record, two vocabularies. */
const iso = (epochMs: number): string => new Date(epochMs).toISOString();

/**
 * The 2025-11-25 `Task`: `ttl` and `pollInterval` in milliseconds; `tasks/get` answers exactly
 * this, `CreateTaskResult` nests it under `task`.
 */
export function legacyTask(record: McpTaskRecord): Record<string, unknown> {
  const task: Record<string, unknown> = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  task.createdAt = iso(record.createdAt);
  task.lastUpdatedAt = iso(record.lastUpdatedAt);
  task.ttl = record.ttlMs;
  task.pollInterval = record.pollIntervalMs;
  return task;
}

/** The tasks extension's `Task`: `ttlMs` and `pollIntervalMs`, integer milliseconds. */
export function modernTask(record: McpTaskRecord): Record<string, unknown> {
  const task: Record<string, unknown> = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  task.createdAt = iso(record.createdAt);
  task.lastUpdatedAt = iso(record.lastUpdatedAt);
  task.ttlMs = record.ttlMs;
  task.pollIntervalMs = record.pollIntervalMs;
  return task;
}

/**
 * The tasks extension's `DetailedTask` (`tasks/get`, `notifications/tasks`): the task with what
 * its status carries inlined: the outstanding `inputRequests`, the `result`, or the `error`. The
 * result is the `CallToolResult` the call would have answered in its request, so it carries
 * `resultType: "complete"` as every 2026-07-28 result does (clients of the extension check it).
 */
export function detailedTask(record: McpTaskRecord): Record<string, unknown> {
  const task = modernTask(record);
  if (record.status === 'input_required') task.inputRequests = record.inputRequests ?? {};
  else if (record.status === 'completed') task.result = completeResult(record.result);
  else if (record.status === 'failed') task.error = record.error ?? { code: -32603, message: 'Internal error' };
  return task;
}

/** The answer to a call that became a task, in the era it was made in. */
export function createTaskResult(record: McpTaskRecord): TypedResult {
  if (record.era === 'legacy') return { task: legacyTask(record) };
  const result: TypedResult = modernTask(record);
  result[RESULT_TYPE] = 'task';
  return result;
}

/** Params with `_meta["io.modelcontextprotocol/related-task"]` added (2025-11-25 task messages). */
export function withRelatedTask(params: Record<string, unknown> | undefined, taskId: string): Record<string, unknown> {
  const meta = params?._meta;
  const existing = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  return { ...params, _meta: { ...existing, [META_RELATED_TASK]: { taskId } } };
}

/**
 * A completed task's result as the extension writes it, serialized once per result object:
 * the tasks service keeps an ended task's result, so every later poll of it splices the same
 * text instead of serializing the result again.
 */
const completeResults = new WeakMap<object, RawJson>();

function completeResult(result: McpTaskRecord['result']): RawJson {
  if (result === undefined) return new RawJson(COMPLETE_EMPTY);
  let raw = completeResults.get(result);
  if (raw === undefined) {
    raw = new RawJson(JSON.stringify({ ...result, resultType: 'complete' }));
    completeResults.set(result, raw);
  }
  return raw;
}

const COMPLETE_EMPTY = JSON.stringify({ content: [], resultType: 'complete' });
