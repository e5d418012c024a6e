import { assertCanElicit, assertCanListRoots, assertCanSample } from '../../client-requests/client-capabilities.js';
import type {
  McpClientRequestOptions,
  McpElicitFormParams,
  McpElicitResult,
  McpElicitUrlParams,
  McpRoot,
  McpSamplingParams,
  McpSamplingResult,
} from '../../context/client-request.types.js';
import type { McpRequestContext, McpRoundState, McpTaskContext } from '../../context/mcp-request-context.js';
import type { McpLogLevel } from '../../model/log-level.js';
import { McpInputRequiredSignal } from '../../protocol/modern/input-round.js';
import type { TaskRun } from './task-run.js';

/**
 * The context of a tool call that runs as a task, or may become one: it wraps the request's own
 * context. While the call runs in its request (`phase: 'request'`) every call goes to the
 * request's context: progress on the request's stream, asks as a multi round-trip round, the
 * request's cancellation. Once it is a task, the task's: `signal` is the task's (aborted by
 * `tasks/cancel`, its time to live, shutdown), progress and asks are the task's (see `TaskRun`),
 * and `task` names it. The handler holds this one object throughout, so the switch needs
 * nothing from it.
 */
export class TaskRequestContext implements McpRequestContext {
  /** Asks of the request's round not answered yet: the call does not become a task meanwhile. */
  private requestAsks = 0;
  private roundEnded = false;
  private readonly unlink: () => void;

  constructor(
    private readonly inner: McpRequestContext,
    private readonly run: TaskRun,
  ) {
    // Until it is a task, the request's cancellation is the call's.
    const onAbort = () => run.controller.abort(inner.signal.reason);
    if (inner.signal.aborted) onAbort();
    else inner.signal.addEventListener('abort', onAbort, { once: true });
    this.unlink = () => inner.signal.removeEventListener('abort', onAbort);
  }

  /** True while the call may still become a task: no ask of its request's round waits, and the round did not end. */
  get mayBecomeTask(): boolean {
    return this.requestAsks === 0 && !this.roundEnded && !this.run.signal.aborted;
  }

  /** The call is a task from now on: the request's cancellation no longer reaches it. */
  enterTask(): void {
    this.run.phase = 'task';
    this.unlink();
  }

  get requestId() {
    return this.inner.requestId;
  }
  get method() {
    return this.inner.method;
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  get session() {
    return this.inner.session;
  }
  get protocolVersion() {
    return this.inner.protocolVersion;
  }
  get era() {
    return this.inner.era;
  }
  get clientCapabilities() {
    return this.inner.clientCapabilities;
  }
  get roundState(): McpRoundState {
    return this.inner.roundState;
  }
  get transport() {
    return this.inner.transport;
  }
  get request() {
    return this.inner.request;
  }
  get auth() {
    return this.inner.auth;
  }
  get meta() {
    return this.inner.meta;
  }
  get signal(): AbortSignal {
    return this.run.signal;
  }
  get task(): McpTaskContext | undefined {
    return this.inTask ? this.run.handle : undefined;
  }

  readonly becomeTask = async (): Promise<boolean> => {
    if (this.inTask) return this.run.whenCreated;
    if (!this.mayBecomeTask || !this.run.handoffNow) return false;
    this.run.handoffNow();
    return this.run.whenCreated;
  };

  readonly sendNotification = async (method: string, params?: Record<string, unknown>): Promise<void> => {
    if (this.inTask) this.run.notify(method, params);
    else await this.inner.sendNotification(method, params);
  };

  readonly reportProgress = async (progress: number, total?: number, message?: string): Promise<void> => {
    if (this.inTask) return this.run.progress(progress, total, message);
    // Kept for the task it may become: its first status message.
    if (message !== undefined) this.run.lastMessage = message;
    await this.inner.reportProgress(progress, total, message);
  };

  readonly log = async (level: McpLogLevel, data: unknown, logger?: string): Promise<void> => {
    if (this.inTask) await this.run.log(level, data, logger);
    else await this.inner.log(level, data, logger);
  };

  readonly elicit = async (
    params: McpElicitFormParams | McpElicitUrlParams,
    options?: McpClientRequestOptions,
  ): Promise<McpElicitResult> => {
    if (!this.inTask) return this.inRequest(() => this.inner.elicit(params, options));
    const url = params.mode === 'url';
    assertCanElicit(this.clientCapabilities, url ? 'url' : 'form');
    const wire = this.run.rules.elicitation({ ...params }, url);
    return (await this.run.ask('elicitation/create', { ...wire }, options?.key)) as McpElicitResult;
  };

  readonly sample = async (
    params: McpSamplingParams,
    options?: McpClientRequestOptions,
  ): Promise<McpSamplingResult> => {
    if (!this.inTask) return this.inRequest(() => this.inner.sample(params, options));
    assertCanSample(this.clientCapabilities, params);
    return (await this.run.ask('sampling/createMessage', { ...params }, options?.key)) as McpSamplingResult;
  };

  readonly listRoots = async (options?: McpClientRequestOptions): Promise<{ roots: McpRoot[] }> => {
    if (!this.inTask) return this.inRequest(() => this.inner.listRoots(options));
    assertCanListRoots(this.clientCapabilities);
    const result = await this.run.ask('roots/list', {}, options?.key);
    return { roots: Array.isArray(result.roots) ? (result.roots as McpRoot[]) : [] };
  };

  private get inTask(): boolean {
    return this.run.phase === 'task';
  }

  /** An ask of the request's round: counted while it waits; the round ending means no task. */
  private async inRequest<T>(ask: () => Promise<T>): Promise<T> {
    this.requestAsks++;
    try {
      return await ask();
    } catch (error) {
      if (error instanceof McpInputRequiredSignal) this.roundEnded = true;
      throw error;
    } finally {
      this.requestAsks--;
    }
  }
}
