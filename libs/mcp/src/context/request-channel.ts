import type { McpClientRequestOptions } from './client-request.types.js';
import type { McpTaskContext } from './mcp-request-context.js';
import type { McpLogLevel } from '../model/log-level.js';

/**
 * A question for the client, as the handler asked it. `check` throws `McpClientCapabilityError`
 * when the client did not declare what it needs: the channel calls it (or not, when it cannot
 * reach the client at all) and decides what that error becomes on its path.
 */
export type ClientAsk =
  | {
      readonly method: 'elicitation/create';
      readonly params: Record<string, unknown>;
      readonly url: boolean;
      check(): void;
    }
  | {
      readonly method: 'sampling/createMessage' | 'roots/list';
      readonly params: Record<string, unknown>;
      check(): void;
    };

/**
 * Where what a handler sends or asks goes: everything of its context that differs between the
 * request's own path, a task, and a read forwarded from another instance. `RequestContext` is
 * the one context; its channel is what changes.
 */
export interface RequestChannel {
  /** Aborted when the work should stop. */
  readonly signal: AbortSignal;
  /** The task the work runs as, while it is one. */
  readonly task?: McpTaskContext;
  /** Present on a call that may become a task (`ctx.becomeTask`). */
  readonly becomeTask?: () => Promise<boolean>;
  /** True once the request's response is decided. */
  readonly completed: boolean;
  /** The response is decided: related messages sent from now on are dropped. */
  complete(): void;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  log(level: McpLogLevel, data: unknown, logger?: string): Promise<void>;
  ask(question: ClientAsk, options?: McpClientRequestOptions): Promise<Record<string, unknown>>;
}
