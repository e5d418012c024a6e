import type {
  McpTaskInputRequest,
  McpTaskReadOptions,
  McpTaskRecord,
  McpTaskSettlement,
} from './store/mcp-task.store.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpMissingClientCapabilityException } from '../../errors/mcp-modern.exceptions.js';
import { isObject } from '../../model/is-object.js';
import type { McpLogLevel } from '../../model/log-level.js';
import type { TypedResult } from '../../model/result-type.js';
import type { McpTaskSupport } from '../../model/task-support.js';
import type { McpEra } from '../../protocol/inbound/inbound.js';

/** The identifier of the tasks extension (MCP 2026-07-28 era). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * How one `tools/call` runs:
 * - `inline`: in its request, as always;
 * - `task`: as a task from the start (2025-11-25: the client asked with `params.task`);
 * - `handoff`: in its request first, becoming a task if it is still running after the handoff
 *   window (tasks extension: the server decides; a call that finishes sooner, or asks the client
 *   for input sooner, answers in its request).
 */
export type McpTaskMode = { readonly kind: 'inline' } | { readonly kind: 'handoff' } | McpTaskModeTask;

interface McpTaskModeTask {
  readonly kind: 'task';
  /** The time to live the client asked for (2025-11-25 `params.task.ttl`). */
  readonly requestedTtlMs?: number;
}

export const INLINE: McpTaskMode = Object.freeze({ kind: 'inline' });
export const HANDOFF: McpTaskMode = Object.freeze({ kind: 'handoff' });

/** True when a modern request's client capabilities declare the tasks extension. */
export function declaresTasksExtension(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** `-32021` naming the tasks extension, as the extension asks of a request that needs it. */
export const missingTasksExtension = (): McpMissingClientCapabilityException =>
  new McpMissingClientCapabilityException({ extensions: { [TASKS_EXTENSION]: {} } });

/** Whether calls of a tool of this support may run as tasks. */
export function supportsTasks(support: McpTaskSupport | undefined): boolean {
  return support === 'optional' || support === 'required';
}

/**
 * How a task of the 2025-11-25 era reaches its client besides the task itself: the streams of
 * the session it belongs to, the progress token of its request (valid for the task's whole
 * life) and the session's `logging/setLevel`. The tasks extension has none: its client learns
 * everything from the task.
 */
export interface McpTaskClientLink {
  readonly sessionId?: string;
  readonly progressToken?: string | number;
  readonly logLevel?: McpLogLevel;
}

/** The two ways a task may ask its client for input; its era picks one. */
export interface McpTaskAskRoutes {
  /** A request pushed on a stream of the task's session, answered as any other (2025-11-25). */
  bySession(key: string, request: McpTaskInputRequest): Promise<Record<string, unknown>>;
  /** An input request kept with the task, answered with `tasks/update` on any instance (tasks extension). */
  byTask(key: string, request: McpTaskInputRequest): Promise<Record<string, unknown>>;
}

/**
 * The task rules of one protocol era, in one object: everything a task does differently in
 * 2025-11-25 (`tasks/*` of the session era) and in the 2026-07-28 tasks extension. Task code
 * picks the object once (`taskEraOf(era)`: per request, per task, per declaration) and never
 * asks which era it is in.
 */
export interface McpTaskEra {
  readonly era: McpEra;
  /** What the server declares: the 2025-11-25 `tasks` capability, or the extension's entry. */
  capabilities(capabilities: Record<string, unknown>): Record<string, unknown>;
  /** Whether `tools/list` shows each tool's `execution.taskSupport` (2025-11-25 only). */
  readonly listsTaskSupport: boolean;
  /**
   * How a `tools/call` runs, from what the tool allows and what the client asked; throws the
   * protocol error of a call the tool does not allow. `serverDeclaresTasks` is asked only when
   * it matters.
   */
  mode(
    support: McpTaskSupport | undefined,
    params: Record<string, unknown>,
    clientCapabilities: Readonly<Record<string, unknown>> | undefined,
    serverDeclaresTasks: () => boolean,
  ): McpTaskMode;
  /** Throws what answers a request that may not use the task methods (tasks extension: one that does not declare it). */
  admit(clientCapabilities: Readonly<Record<string, unknown>> | undefined): void;
  /** Who may see the tasks of a caller: the principal's digest, and in 2025-11-25 the session too. */
  owner(principal: string | undefined, sessionId: string | undefined): string;
  /** Whether a caller is someone in particular (a principal, or in 2025-11-25 a session): else there is nothing to list by. */
  identifies(principal: string | undefined, sessionId: string | undefined): boolean;
  /** How a task started by this request reaches its client besides the task (undefined: it does not). */
  clientLink(ctx: Pick<McpRequestContext, 'sessionId' | 'session' | 'meta'>): McpTaskClientLink | undefined;
  /** The answer to a call that became a task. */
  created(record: McpTaskRecord): TypedResult;
  /** What `tasks/get` reads of the task (2025-11-25: its status only). */
  readonly pollReads?: McpTaskReadOptions;
  /** The answer of `tasks/get`: the 2025-11-25 `Task`, or the extension's `DetailedTask`. */
  polled(record: McpTaskRecord): Record<string, unknown>;
  /** Throws when `tasks/cancel` of this task is an error before anything is written (2025-11-25: an ended task). */
  cancelling(record: McpTaskRecord): void;
  /** The answer of `tasks/cancel` from the task after it (undefined: it vanished meanwhile). */
  cancelled(record: McpTaskRecord | undefined): Record<string, unknown>;
  /** How a task ends with the handler's result: an `isError` result fails a 2025-11-25 task, it completes an extension one. */
  completion(result: Record<string, unknown>): McpTaskSettlement;
  /** The params of `elicitation/create` as this era writes them. */
  elicitation(params: Record<string, unknown>, url: boolean): Record<string, unknown>;
  /** Asks the client for input from a task, by the route of this era. */
  ask(routes: McpTaskAskRoutes, key: string, request: McpTaskInputRequest): Promise<Record<string, unknown>>;
}

/** A task's times on the wire. */
const iso = (epochMs: number): string => new Date(epochMs).toISOString();

/**
 * A task on the wire with its times as the era names them: what both eras' `Task` share
 * (`taskId`, `status`, `statusMessage`, `createdAt`, `lastUpdatedAt`), then `ttl` and
 * `pollInterval` under the era's names (2025-11-25 `ttl`, `pollInterval`; the tasks extension
 * `ttlMs`, `pollIntervalMs`), all in milliseconds.
 */
export function taskOnWire(record: McpTaskRecord, ttlKey: string, pollKey: string): Record<string, unknown> {
  const task: Record<string, unknown> = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  task.createdAt = iso(record.createdAt);
  task.lastUpdatedAt = iso(record.lastUpdatedAt);
  task[ttlKey] = record.ttlMs;
  task[pollKey] = record.pollIntervalMs;
  return task;
}
