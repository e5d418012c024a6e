import { Injectable } from '@nestjs/common';
import type { ChannelContext } from '../../context/channel-context.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { JsonRpcErrorCode } from '../../model/json-rpc.js';
import type {
  McpCallRunner,
  McpCaller,
  McpDeclaredTool,
  McpExtension,
  McpExtensionEra,
  McpExtensionMethod,
  McpListened,
  McpShown,
  McpToolDeclaration,
  McpToolSteps,
} from '../../extension/mcp-extension.interface.js';
import type { McpToolEntry } from '../../registry/mcp-tool.registry.js';
import { declaredTaskSupport, LEGACY_TASK_TOOLS, taskSupportOf } from './task-tools.js';
import { McpExtensionHost } from '../../protocol/handlers/mcp-extension.host.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import { argumentDepthError } from '../../schema/argument-depth.js';
import { McpTasks } from './mcp-tasks.service.js';
import { McpTaskLookup } from './task-lookup.js';
import { McpTaskRuns } from './task-runs.js';
import { McpTaskListens } from './task-listens.js';
import { META_RELATED_TASK } from './legacy-tasks.js';
import { supportsTasks, TASKS_EXTENSION } from './task-era.js';
import { taskEraOf } from './task-eras.js';
import { isObject } from '../../model/is-object.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** Reads of a task that answer its status, not its result. */
const STATUS_ONLY = Object.freeze({ result: false });

/** Whether an answer has the shape of the result of `method` (a client cannot hand in anything). */
function isResultOf(method: string, answer: unknown): boolean {
  if (!isObject(answer)) return false;
  if (method === 'elicitation/create') return ['accept', 'decline', 'cancel'].includes(answer.action as string);
  if (method === 'sampling/createMessage') return typeof answer.role === 'string' && answer.content !== undefined;
  return Array.isArray(answer.roots);
}

const EVERY_CALL: McpToolSteps = Object.freeze({ runsCall: true });
const ASKING_FOR_A_TASK: McpToolSteps = Object.freeze({ runsCall: Object.freeze({ whenParam: 'task' }) });

/** Every `tasks/*` request counts against the caller's `tasks.pollRateLimit`, applied by the host. */
const POLL = { rateLimited: 'taskRequests' } as const;

/**
 * Tasks (long-running tool calls, both eras) plugged into the core as an extension. Its methods:
 * - 2025-11-25 (with the `tasks` capability): `tasks/get`, `tasks/result` (waits for the end
 *   and answers what the call would have), `tasks/list` (the caller's tasks of this session),
 *   `tasks/cancel` (the cancelled task; `-32602` for one that already ended);
 * - tasks extension (2026-07-28, with `capabilities.extensions["io.modelcontextprotocol/tasks"]`):
 *   `tasks/get` (the `DetailedTask`), `tasks/update` and `tasks/cancel` (empty
 *   acknowledgements), each `-32021` for a request that does not declare the extension.
 * Each counts against the caller's task requests (`rateLimited: 'taskRequests'`), a rule the
 * host applies as for every extension method. Every lookup is the caller's own, under the scopes
 * of the task's tool (`McpTasks.find`: a task's status and result are its tool's output, so the
 * scopes are the record's, not the method's): another caller's task answers as an unknown one does.
 */
@Injectable()
export class McpTasksExtension implements McpExtension {
  readonly name = TASKS_EXTENSION;
  constructor(
    @McpOptions('tasks') private readonly options: McpOptionGroup<'tasks'>,
    private readonly tasks: McpTasks,
    private readonly lookup: McpTaskLookup,
    private readonly runs: McpTaskRuns,
    private readonly listens: McpTaskListens,
    host: McpExtensionHost,
  ) {
    host.plug(this);
  }

  /** The methods exist when some tool supports tasks. */
  present(): boolean {
    return this.tasks.declared;
  }

  methods(): Record<string, McpExtensionMethod> {
    return {
      // Both eras name these two; each answers by its era's task rules (`McpTaskEra`).
      'tasks/get': { ...POLL, run: (params, ctx) => this.get(params, ctx) },
      'tasks/cancel': { ...POLL, run: (params, ctx) => this.cancel(params, ctx) },
      'tasks/result': { ...POLL, eras: 'legacy', run: (params, ctx, dispatch) => this.result(params, ctx, dispatch) },
      'tasks/list': { ...POLL, eras: 'legacy', run: (params, ctx) => this.list(params, ctx) },
      'tasks/update': { ...POLL, eras: 'modern', run: (params, ctx) => this.update(params, ctx) },
    };
  }

  /**
   * 2025-11-25: `tasks` with `list`, `cancel` and task-augmented `tools/call`. The modern era:
   * the extension in `extensions`, never the 2025-11-25 `tasks` capability (the extension
   * replaces it in every version that has it). The era's task rules say which.
   */
  capabilities(capabilities: Record<string, unknown>, era: McpExtensionEra): Record<string, unknown> {
    return taskEraOf(era).capabilities(capabilities);
  }

  /**
   * `notifications.taskIds` of a listen (tasks extension): the caller's tasks among them are
   * honoured, and their status notifications sent (`McpTaskListens`).
   */
  async listen(filter: Readonly<Record<string, unknown>>, ctx: McpRequestContext): Promise<McpListened | undefined> {
    if (filter.taskIds === undefined) return undefined;
    const { asked, honoured } = await this.listens.filter(filter.taskIds, ctx);
    return {
      asked,
      honoured: { taskIds: honoured },
      follow: honoured.length > 0 ? (notify) => this.listens.follow(honoured, ctx, notify) : undefined,
    };
  }

  /** The 2025-11-25 `tools/list` shows each tool's `execution.taskSupport`; the modern one does not. */
  toolsShownTo(caller: McpCaller): McpShown<McpToolEntry> | undefined {
    // A caller that names no era is served as a 2025 one.
    return !taskEraOf(caller.era ?? 'legacy').listsTaskSupport || this.tasks.declaringTools() === 0
      ? undefined
      : LEGACY_TASK_TOOLS;
  }

  /** A tool's `taskSupport`, checked, kept on its entry (`taskSupportOf`). */
  declareTool({ options, descriptor, source }: McpToolDeclaration): McpDeclaredTool | undefined {
    const support = declaredTaskSupport(options, source);
    return support === undefined ? undefined : { descriptor, data: support };
  }

  /**
   * Its task mode step applies to every call of a tool that supports tasks, and to no call of
   * another tool but one that carries `params.task` (which 2025-11-25 refuses for such a tool
   * once the server declares tasks; every other call of it runs in its request, in both eras).
   */
  stepsFor(tool: McpToolEntry): McpToolSteps {
    return supportsTasks(taskSupportOf(tool)) ? EVERY_CALL : ASKING_FOR_A_TASK;
  }

  /**
   * The task mode step of `tools/call` (`McpTasks.modeOf`): a call that runs as a task, or may
   * become one, runs through `McpTasks.start`, which keeps the tool's scopes with the task (its
   * lookups need them as a call of the tool does).
   */
  runsCall(tool: McpToolEntry, params: Record<string, unknown>, ctx: ChannelContext): McpCallRunner | undefined {
    const mode = this.tasks.modeOf(tool, params, ctx);
    if (mode.kind === 'inline') return undefined;
    return (execute) => this.tasks.start(mode, ctx, execute, tool.requiredScopes);
  }

  /**
   * `tasks/get`: the 2025-11-25 `Task` (its status only: the result is left out of the read), or
   * the extension's `DetailedTask` (`-32021` for a request that does not declare it).
   */
  private async get(params: Record<string, unknown>, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const era = taskEraOf(ctx.era);
    era.admit(ctx.clientCapabilities);
    return era.polled(await this.lookup.find(params.taskId, ctx, era.pollReads));
  }

  /**
   * `tasks/cancel`: 2025-11-25 answers the cancelled task (`-32602` for one that already ended);
   * the extension acknowledges whatever the task's status (cancellation is eventually consistent).
   */
  private async cancel(params: Record<string, unknown>, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const era = taskEraOf(ctx.era);
    era.admit(ctx.clientCapabilities);
    const record = await this.lookup.find(params.taskId, ctx, STATUS_ONLY);
    era.cancelling(record);
    return era.cancelled(await this.runs.cancel(record));
  }

  /** `tasks/update` (tasks extension): the client's answers to the task's outstanding input requests. */
  private async update(params: Record<string, unknown>, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    taskEraOf(ctx.era).admit(ctx.clientCapabilities);
    const responses = params.inputResponses;
    if (!isObject(responses)) {
      throw new McpInvalidParamsException("'inputResponses' must be an object of results by input key");
    }
    const record = await this.lookup.find(params.taskId, ctx, STATUS_ONLY);
    const outstanding = record.status === 'input_required' ? (record.inputRequests ?? {}) : {};
    // Answers to keys that are not outstanding are ignored, as the extension asks.
    const answered: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(outstanding)) {
      if (!Object.hasOwn(responses, key)) continue;
      if (!isResultOf(request.method, responses[key])) {
        throw new McpInvalidParamsException(`inputResponses.${key} is not a valid result of ${request.method}`, {
          key,
        });
      }
      answered[key] = responses[key];
    }
    const tooDeep = argumentDepthError(answered, this.options.maxArgumentDepth);
    if (tooDeep !== undefined) throw new McpInvalidParamsException(`inputResponses: ${tooDeep}`);
    if (Object.keys(answered).length > 0) await this.runs.answer(record, answered);
    return {};
  }

  private async list(params: Record<string, unknown>, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const cursor = params.cursor;
    if (cursor !== undefined && typeof cursor !== 'string')
      throw new McpInvalidParamsException("'cursor' must be a string");
    return this.lookup.list(cursor, ctx);
  }

  /**
   * 2025-11-25 `tasks/result`: waits until the task ends (its messages meanwhile on this answer
   * stream), then answers exactly what the call would have: its result, with the related-task
   * `_meta`, or its error.
   */
  private async result(
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    dispatch: McpDispatchContext,
  ): Promise<Record<string, unknown>> {
    const record = await this.lookup.untilEnded(await this.lookup.find(params.taskId, ctx), ctx, dispatch.sendRelated);
    if (record.result) {
      const meta = isObject(record.result._meta) ? record.result._meta : {};
      return { ...record.result, _meta: { ...meta, [META_RELATED_TASK]: { taskId: record.taskId } } };
    }
    if (record.error) {
      const { code, message, data } = record.error;
      throw new McpException(code, message, undefined, data);
    }
    throw new McpException(
      JsonRpcErrorCode.InvalidParams,
      'Task cancelled',
      'The task was cancelled before it finished: it has no result',
      { status: record.status },
    );
  }
}
