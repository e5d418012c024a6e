import type { McpTaskRecord } from './store/mcp-task.store.js';
import { isTerminalTaskStatus } from './store/mcp-task.store.js';
import { McpTaskAlreadyTerminalException, McpTaskNotFoundException } from './task.exceptions.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { isObject } from '../../model/is-object.js';
import { JsonRpcErrorCode } from '../../model/json-rpc.js';
import { isLogLevel } from '../../model/log-level.js';
import { progressTokenOf } from '../../model/progress-token.js';
import type { McpTaskSupport } from '../../model/task-support.js';
import { errorTextOf } from '../../results/error-text.js';
import { legacyElicitation } from '../../protocol/eras/legacy-era.context.js';
import { INLINE, supportsTasks, taskOnWire, type McpTaskEra, type McpTaskMode } from './task-era.js';

/** The `_meta` key that ties a message of the 2025-11-25 era to its task. */
export const META_RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A read of a task without its result. */
const STATUS_ONLY = Object.freeze({ result: false });

/**
 * The 2025-11-25 `Task`: `ttl` and `pollInterval` in milliseconds; `tasks/get` answers exactly
 * this, `CreateTaskResult` nests it under `task`.
 */
export function legacyTask(record: McpTaskRecord): Record<string, unknown> {
  return taskOnWire(record, 'ttl', 'pollInterval');
}

/** Params with `_meta["io.modelcontextprotocol/related-task"]` added (2025-11-25 task messages). */
export function withRelatedTask(params: Record<string, unknown> | undefined, taskId: string): Record<string, unknown> {
  const meta = params?._meta;
  const existing = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  return { ...params, _meta: { ...existing, [META_RELATED_TASK]: { taskId } } };
}

/**
 * 2025-11-25 (the experimental tasks, only when the server declares them: some tool supports
 * tasks): `params.task` asks for a task; it is `-32601` for a tool whose support is `forbidden`
 * (or undeclared), and its absence is `-32601` for a `required` one. A server without task tools
 * ignores `params.task`.
 */
function legacyMode(
  support: McpTaskSupport | undefined,
  params: Record<string, unknown>,
  serverDeclaresTasks: () => boolean,
): McpTaskMode {
  const supported = supportsTasks(support);
  const task = params.task;
  // A call that asks nothing of a tool that needs nothing: no need to ask the server.
  if (!supported && task === undefined) return INLINE;
  if (!serverDeclaresTasks()) return INLINE;
  if (task === undefined) {
    if (support === 'required') {
      throw new McpException(
        JsonRpcErrorCode.MethodNotFound,
        'Method not found',
        `Tool '${String(params.name)}' runs only as a task: call it with params.task`,
      );
    }
    return INLINE;
  }
  if (!isObject(task)) throw new McpInvalidParamsException("'task' must be an object ({ ttl? })");
  if (!supported) {
    throw new McpException(
      JsonRpcErrorCode.MethodNotFound,
      'Method not found',
      `Tool '${String(params.name)}' does not run as a task: call it without params.task`,
    );
  }
  const ttl = task.ttl;
  if (ttl !== undefined && ttl !== null && !(typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0)) {
    throw new McpInvalidParamsException("'task.ttl' must be a number of milliseconds");
  }
  return typeof ttl === 'number' ? { kind: 'task', requestedTtlMs: ttl } : { kind: 'task' };
}

/**
 * Tasks in the 2025-11-25 era: a task belongs to its session (its owner is the principal and the
 * session), its messages (progress, logs, requests to the client) go to the session's streams
 * with the related-task `_meta`, its client asks for it with `params.task`, and an `isError`
 * result fails it.
 */
export const LEGACY_TASKS: McpTaskEra = {
  era: 'legacy',
  capabilities: (capabilities) => ({
    ...capabilities,
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  }),
  listsTaskSupport: true,
  mode: (support, params, _clientCapabilities, serverDeclaresTasks) => legacyMode(support, params, serverDeclaresTasks),
  admit: () => undefined,
  owner: (principal, sessionId) => `l:${principal ?? ''}:${sessionId ?? ''}`,
  identifies: (principal, sessionId) => principal !== undefined || sessionId !== undefined,
  clientLink: (ctx) => ({
    sessionId: ctx.sessionId,
    progressToken: progressTokenOf(ctx.meta),
    logLevel: isLogLevel(ctx.session?.logLevel) ? ctx.session.logLevel : undefined,
  }),
  created: (record) => ({ task: legacyTask(record) }),
  // The 2025-11-25 Task is the status only: the result is left out of the read.
  pollReads: STATUS_ONLY,
  polled: legacyTask,
  cancelling: (record) => {
    if (isTerminalTaskStatus(record.status)) throw new McpTaskAlreadyTerminalException(record.status);
  },
  cancelled: (record) => {
    if (!record) throw new McpTaskNotFoundException();
    if (record.status !== 'cancelled') throw new McpTaskAlreadyTerminalException(record.status);
    return legacyTask(record);
  },
  completion: (result) =>
    result.isError === true
      ? { status: 'failed', statusMessage: errorTextOf(result), result }
      : { status: 'completed', result },
  elicitation: legacyElicitation,
  ask: (routes, key, request) => routes.bySession(key, request),
};
