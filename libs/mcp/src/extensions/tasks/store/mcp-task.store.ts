/** Where a task stands. `completed`, `failed` and `cancelled` are terminal: they never change. @publicApi */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The terminal statuses. */
export type McpTaskTerminalStatus = 'completed' | 'failed' | 'cancelled';

/** True for `completed`, `failed` and `cancelled`. @publicApi */
export const isTerminalTaskStatus = (status: McpTaskStatus): status is McpTaskTerminalStatus =>
  status === 'completed' || status === 'failed' || status === 'cancelled';

/** One request a task waits on the client for (tasks extension `inputRequests`). @publicApi */
export interface McpTaskInputRequest {
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params: Record<string, unknown>;
}

/** The JSON-RPC error a failed task ended with. @publicApi */
export interface McpTaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: Record<string, unknown>;
}

/**
 * One task as a store keeps it: who it belongs to, where it runs, where it stands and, once
 * terminal, how it ended. Times are epoch milliseconds. Plain JSON: any store can hold it.
 * @publicApi
 */
export interface McpTaskRecord {
  /** Unguessable (128 random bits): the handle the client polls with. */
  readonly taskId: string;
  /**
   * Who may see it: opaque, compared for equality by the core (a digest of the principal, and in
   * the 2025-11-25 era the session). Lookups by anyone else answer as for an unknown task.
   */
  readonly owner: string;
  /** Whose storage budget it counts against while it is stored (`McpTaskLimits`); none: only the global bounds. */
  readonly caller?: string;
  /** The instance running its handler (`McpInstanceMessaging.instanceId`). */
  readonly instanceId: string;
  /**
   * The scopes the tool needed when the call was made (`@RequireScopes()`): every lookup of the
   * task checks them against the caller's current token, as a direct call of the tool would.
   */
  readonly requiredScopes?: readonly string[];
  /** The protocol era it was created in: its wire shapes and the meaning of `failed` follow it. */
  readonly era: 'legacy' | 'modern';
  /** 2025-11-25 era: the session, whose stream hears its status notifications. */
  readonly sessionId?: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Time to live from `createdAt`: the record is gone on every instance once it lapsed. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** While `input_required` (tasks extension): the outstanding requests, by key. */
  readonly inputRequests?: Readonly<Record<string, McpTaskInputRequest>>;
  /** Terminal: the result of the underlying request (`completed`; `failed` for a 2025-11-25 `isError` tool result). */
  readonly result?: Record<string, unknown>;
  /** Terminal `failed`: the JSON-RPC error the underlying request ended with. */
  readonly error?: McpTaskError;
}

/** How a task ends. @publicApi */
export interface McpTaskSettlement {
  readonly status: McpTaskTerminalStatus;
  readonly statusMessage?: string;
  readonly result?: Record<string, unknown>;
  readonly error?: McpTaskError;
}

/**
 * What one caller, and everyone together, may keep in a task store: every stored task counts,
 * running or ended, with the bytes of its record and result, until it is gone. Given with each
 * `create` and kept with the task (its `settle` checks the bytes of its result against them).
 * @publicApi
 */
export interface McpTaskLimits {
  /** Tasks one caller may have stored at once (`tasks.maxPerCaller`). */
  readonly maxPerCaller: number;
  /** Bytes of JSON (records and results) one caller may have stored at once (`tasks.maxBytesPerCaller`). */
  readonly maxBytesPerCaller: number;
  /** Tasks stored at once, every caller together (`tasks.maxStored`). */
  readonly maxStored: number;
  /** Bytes of JSON stored at once, every caller together (`tasks.maxStoredBytes`). */
  readonly maxStoredBytes: number;
  /** How long a task stays once it ended, at most until its time to live lapses (`tasks.resultTtlMs`). */
  readonly resultTtlMs: number;
}

/** The detail of the error a task fails with when its result does not fit its caller's budget. */
export const RESULT_NOT_KEPT = 'The result was not kept: it does not fit the task storage of its caller';

/** What a read of a task needs. @publicApi */
export interface McpTaskReadOptions {
  /** Whether the result of a completed task is read too. @default true */
  readonly result?: boolean;
}

/** A page of a caller's tasks (2025-11-25 `tasks/list`), their results left out. @publicApi */
export interface McpTaskPage {
  readonly records: McpTaskRecord[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string;
}

/**
 * Thrown by `McpTaskStore.list` for a cursor it did not hand out (or whose task is gone): the
 * core answers `-32602`. @publicApi
 */
export class McpTaskCursorError extends Error {
  constructor(cursor: string) {
    super(`Unknown cursor '${cursor.slice(0, 64)}'`);
    this.name = 'McpTaskCursorError';
  }
}

/**
 * Where tasks live (the tasks extension `io.modelcontextprotocol/tasks`, and the experimental
 * tasks of MCP 2025-11-25): a backend seam (see `McpBackend`). Any instance answers for any task
 * from it; the instance that runs a task's handler writes its progress and its end. Every call
 * is one atomic step (one round trip for a shared store) and rejects with
 * `McpBackendUnavailableError` when the store cannot be reached.
 *
 * Rules every store keeps:
 * - a terminal status never changes: every change but `create` applies only to a task that is
 *   not terminal, and says whether it applied;
 * - a record is gone everywhere once `createdAt + ttlMs` has passed; a task that ended is gone
 *   `limits.resultTtlMs` after its end at the latest (its `ttlMs` shrinks to say so);
 * - a task counts against its `caller`'s budget (`McpTaskLimits`: tasks and bytes) from `create`
 *   until it is gone, ended or not, and against the global bounds whoever its caller;
 * - what does not fit makes room by removing that caller's oldest ended tasks, never another
 *   caller's; when that is not enough, `create` resolves `false` (the caller's budget) or rejects
 *   with `McpBackendUnavailableError` (the global bounds), and `settle` ends the task `failed`
 *   with `RESULT_NOT_KEPT` instead of storing its result;
 * - a shared store settles every task whose instance is gone (its liveness lapsed) as
 *   `ORPHANED_TASK`: at the latest by the next `reapOrphans` (it may on a read sooner), so no
 *   task stays `working` for ever.
 * @publicApi
 */
export interface McpTaskStore {
  /**
   * The id of a new task of `caller` (its `McpTaskRecord.caller`, undefined for none), made from
   * `random`, the unguessable id the core made for it. A store that places tasks by their caller
   * (over the shards of a cluster, so that a caller's budget is checked in one place) says where
   * in the id, so that every lookup by id alone finds the task. It keeps `random` whole in the id
   * (what makes it unguessable) and adds at most 32 characters of `[A-Za-z0-9._-]`. Absent: the
   * id is `random`.
   */
  newTaskId?(random: string, caller: string | undefined): string;
  /**
   * Stores a new task within `limits` (kept with it), removing the oldest ended tasks of its
   * caller when that makes room. Resolves `false`, storing nothing, when its `caller` would still
   * pass its budget (its stored tasks are all running); rejects with
   * `McpBackendUnavailableError` when the store as a whole is full. Once it resolved `true`,
   * `get` finds the task on every instance.
   */
  create(record: McpTaskRecord, limits: McpTaskLimits): Promise<boolean>;
  /**
   * The task, or undefined when it is unknown or its time to live lapsed. With `result: false`
   * the store may leave its `result` out: a read that answers the status only then costs the
   * same whatever the size of the result.
   */
  get(taskId: string, options?: McpTaskReadOptions): Promise<McpTaskRecord | undefined>;
  /** Sets the status message of a task that is not terminal. */
  setStatusMessage(taskId: string, statusMessage: string, now: number): Promise<boolean>;
  /** Adds outstanding input requests (keys not used before in this task) and makes it `input_required`. */
  ask(taskId: string, requests: Readonly<Record<string, McpTaskInputRequest>>, now: number): Promise<boolean>;
  /**
   * Takes the client's answers to outstanding requests (answers to any other key are ignored):
   * each answered key leaves `inputRequests`, its answer is kept for `takeAnswers`, and with no
   * request left the task is `working` again. Resolves to the keys taken (empty when none, or
   * when the task is terminal or gone).
   */
  answer(taskId: string, responses: Readonly<Record<string, unknown>>, now: number): Promise<string[]>;
  /** The answers `answer` kept, removed as they are read (by the instance that runs the task). */
  takeAnswers(taskId: string): Promise<Record<string, unknown>>;
  /** Withdraws outstanding requests (answered on another channel, or given up); `working` when none is left. */
  withdraw(taskId: string, keys: readonly string[], now: number): Promise<boolean>;
  /**
   * Ends a task: from now it stays at most the `resultTtlMs` of its limits. A result (or error)
   * that does not fit the limits, even after the oldest ended tasks of its caller were removed,
   * is not stored: the task ends `failed` with `RESULT_NOT_KEPT`. Resolves to its status before
   * (a terminal one means nothing changed), or undefined when the task is unknown or gone.
   */
  settle(taskId: string, settlement: McpTaskSettlement, now: number): Promise<McpTaskStatus | undefined>;
  /**
   * The tasks of one owner, oldest first, `limit` at a time (2025-11-25 `tasks/list`). Rejects
   * with `McpTaskCursorError` for a cursor it did not hand out.
   */
  list(owner: string, cursor: string | undefined, limit: number): Promise<McpTaskPage>;
  /**
   * Settles every task still running on `instanceId` (not terminal) as `settlement` says: at
   * startup, for what an instance of the same id left behind in a previous life. Resolves to the
   * ids of the tasks it settled.
   */
  settleInstance(instanceId: string, settlement: McpTaskSettlement, now: number): Promise<string[]>;
  /**
   * A shared store: fails (`ORPHANED_TASK`) the tasks of instances that are gone (their liveness
   * lapsed), and resolves to their ids. Called periodically by every instance. Absent for a store
   * of one process, whose instance cannot die without it.
   */
  reapOrphans?(now: number): Promise<string[]>;
}

/**
 * How a shared store settles a task whose instance is gone (killed, crashed, cut off): `failed`
 * with an internal error that says so, never `working` for ever. @publicApi
 */
export const ORPHANED_TASK: McpTaskSettlement = Object.freeze({
  status: 'failed',
  statusMessage: 'The server instance running this task stopped before it finished',
  error: Object.freeze({
    code: -32603,
    message: 'Internal error',
    data: Object.freeze({ detail: 'The server instance running this task stopped before it finished' }),
  }),
});
