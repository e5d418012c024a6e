import type { McpTaskRecord } from './store/mcp-task.store.js';
import { withExtensionCapability } from '../../extension/mcp-extensions.js';
import { RawJson } from '../../model/raw-json.js';
import { RESULT_TYPE, type TypedResult } from '../../model/result-type.js';
import {
  declaresTasksExtension,
  HANDOFF,
  INLINE,
  taskOnWire,
  missingTasksExtension,
  supportsTasks,
  TASKS_EXTENSION,
  type McpTaskEra,
} from './task-era.js';

/** The tasks extension's `Task`: `ttlMs` and `pollIntervalMs`, integer milliseconds. */
export function modernTask(record: McpTaskRecord): Record<string, unknown> {
  return taskOnWire(record, 'ttlMs', 'pollIntervalMs');
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

/** A modern request may use the task methods only when it declares the extension. */
function admit(clientCapabilities: Readonly<Record<string, unknown>> | undefined): void {
  if (!declaresTasksExtension(clientCapabilities)) throw missingTasksExtension();
}

/**
 * Tasks in the 2026-07-28 era (the tasks extension): the client declares the extension in each
 * request's capabilities, the server decides which call becomes a task (a tool that supports
 * tasks, still running after the handoff window), a task belongs to its principal alone, asks
 * its client through its `inputRequests` (answered with `tasks/update`), has no channel for
 * notifications, and an `isError` result completes it (the result says the rest).
 */
export const MODERN_TASKS: McpTaskEra = {
  era: 'modern',
  // The extension in `extensions`, never the 2025-11-25 `tasks` capability (the extension replaces it).
  capabilities: (capabilities) => withExtensionCapability(capabilities, TASKS_EXTENSION, {}),
  listsTaskSupport: false,
  // `params.task` means nothing in this era and is ignored; a `required` tool without the extension is `-32021`.
  mode: (support, _params, clientCapabilities) => {
    if (!supportsTasks(support)) return INLINE;
    if (declaresTasksExtension(clientCapabilities)) return HANDOFF;
    if (support === 'required') throw missingTasksExtension();
    return INLINE;
  },
  admit,
  owner: (principal) => `m:${principal ?? ''}`,
  identifies: (principal) => principal !== undefined,
  clientLink: () => undefined,
  created: (record) => {
    const result: TypedResult = modernTask(record);
    result[RESULT_TYPE] = 'task';
    return result;
  },
  polled: detailedTask,
  // Cancellation is eventually consistent: an acknowledgement whatever the task's status.
  cancelling: () => undefined,
  cancelled: () => ({}),
  completion: (result) => ({ status: 'completed', result }),
  // The modern era dropped `elicitationId` (as in a request).
  elicitation: (params) => params,
  ask: (routes, key, request) => routes.byTask(key, request),
};
