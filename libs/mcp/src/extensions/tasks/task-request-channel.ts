import type { McpClientRequestOptions } from '../../context/client-request.types.js';
import type { McpTaskContext } from '../../context/mcp-request-context.js';
import type { McpLogLevel } from '../../model/log-level.js';
import { McpInputRequiredSignal } from '../../protocol/modern/input-round.js';
import type { ClientAsk, RequestChannel } from '../../context/request-channel.js';
import type { TaskRun } from './task-run.js';

/**
 * The channel of a tool call that runs as a task, or may become one; the handler holds one
 * context on it throughout, so the switch needs nothing from the handler. While the call runs
 * in its request (`phase: 'request'`) everything goes to the request's channel: progress on the
 * request's stream (its message also kept as the task's first status message), asks as the
 * request asks them (counted: the call does not become a task while one waits). Once it is a
 * task, the task's (`TaskRun`): progress and asks are the task's, `task` names it, and a
 * missing client capability is the raw `McpClientCapabilityError` (a task has no round for the
 * modern `-32021`). `signal` is the task's throughout: the request's cancellation reaches it
 * until the call is a task (aborted then by `tasks/cancel`, its time to live, shutdown).
 */
export class TaskRequestChannel implements RequestChannel {
  /** Asks of the request's round not answered yet: the call does not become a task meanwhile. */
  private requestAsks = 0;
  private roundEnded = false;
  private readonly unlink: () => void;

  constructor(
    private readonly request: RequestChannel,
    private readonly run: TaskRun,
  ) {
    // Until it is a task, the request's cancellation is the call's.
    const onAbort = () => run.controller.abort(request.signal.reason);
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
    this.unlink = () => request.signal.removeEventListener('abort', onAbort);
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

  get signal(): AbortSignal {
    return this.run.signal;
  }
  get task(): McpTaskContext | undefined {
    return this.inTask ? this.run.handle : undefined;
  }
  get completed(): boolean {
    return this.request.completed;
  }

  complete(): void {
    this.request.complete();
  }

  readonly becomeTask = async (): Promise<boolean> => {
    if (this.inTask) return this.run.whenCreated;
    if (!this.mayBecomeTask || !this.run.handoffNow) return false;
    this.run.handoffNow();
    return this.run.whenCreated;
  };

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.inTask) this.run.notify(method, params);
    else await this.request.notify(method, params);
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.inTask) return this.run.progress(progress, total, message);
    // Kept for the task it may become: its first status message.
    if (message !== undefined) this.run.lastMessage = message;
    await this.request.progress(progress, total, message);
  }

  async log(level: McpLogLevel, data: unknown, logger?: string): Promise<void> {
    if (this.inTask) await this.run.log(level, data, logger);
    else await this.request.log(level, data, logger);
  }

  async ask(question: ClientAsk, options?: McpClientRequestOptions): Promise<Record<string, unknown>> {
    if (!this.inTask) return this.inRequest(() => this.request.ask(question, options));
    question.check();
    const params =
      question.method === 'elicitation/create'
        ? this.run.rules.elicitation({ ...question.params }, question.url)
        : question.params;
    return this.run.ask(question.method, { ...params }, options?.key);
  }

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
