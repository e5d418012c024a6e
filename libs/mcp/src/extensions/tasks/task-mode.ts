import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpMissingClientCapabilityException } from '../../errors/mcp-modern.exceptions.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { JsonRpcErrorCode } from '../../model/json-rpc.js';
import type { McpTaskSupport } from '../../model/task-support.js';
import { TASKS_EXTENSION } from './task-wire.js';
import { isObject } from '../../model/is-object.js';

/**
 * How one `tools/call` runs:
 * - `inline`: in its request, as always;
 * - `task`: as a task from the start (2025-11-25: the client asked with `params.task`);
 * - `handoff`: in its request first, becoming a task if it is still running after the handoff
 *   window (tasks extension: the server decides; a call that finishes sooner, or asks the client
 *   for input sooner, answers in its request).
 */
export type McpTaskMode = { readonly kind: 'inline' } | { readonly kind: 'handoff' } | TaskModeTask;

interface TaskModeTask {
  readonly kind: 'task';
  /** The time to live the client asked for (2025-11-25 `params.task.ttl`). */
  readonly requestedTtlMs?: number;
}

const INLINE: McpTaskMode = Object.freeze({ kind: 'inline' });
const HANDOFF: McpTaskMode = Object.freeze({ kind: 'handoff' });

/** True when a modern request's client capabilities declare the tasks extension. */
export function declaresTasksExtension(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** `-32021` naming the tasks extension, as the extension asks of a request that needs it. */
export const missingTasksExtension = (): McpMissingClientCapabilityException =>
  new McpMissingClientCapabilityException({ extensions: { [TASKS_EXTENSION]: {} } });

/**
 * Decides how a `tools/call` runs, from what the tool allows and what the client asked.
 *
 * 2025-11-25 (the experimental tasks, only when the server declares them: some tool supports
 * tasks): `params.task` asks for a task; it is `-32601` for a tool whose support is `forbidden`
 * (or undeclared), and its absence is `-32601` for a `required` one. A server without task tools
 * ignores `params.task`.
 *
 * Tasks extension: the client declares the extension in the request's capabilities; a tool that
 * supports tasks then may become one (`handoff`). A `required` tool without the extension is
 * `-32021`. `params.task` means nothing in this era and is ignored.
 */
export function taskModeOf(
  support: McpTaskSupport | undefined,
  params: Record<string, unknown>,
  ctx: Pick<McpRequestContext, 'era' | 'clientCapabilities'>,
  serverDeclaresTasks: boolean,
): McpTaskMode {
  const supported = support === 'optional' || support === 'required';
  if (ctx.era === 'modern') {
    if (!supported) return INLINE;
    if (declaresTasksExtension(ctx.clientCapabilities)) return HANDOFF;
    if (support === 'required') throw missingTasksExtension();
    return INLINE;
  }
  if (!serverDeclaresTasks) return INLINE;
  const task = params.task;
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
