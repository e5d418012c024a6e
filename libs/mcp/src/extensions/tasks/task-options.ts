import type { McpTaskLimits } from './store/mcp-task.store.js';
import type { McpTasksOptions, ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';

/** The longest delay a Node.js timer takes (a task's time to live is one). */
const MAX_TIMER_MS = 2_147_483_647;

/** The task options after defaults, as the rest of the library reads them. */
export type ResolvedTaskOptions = Pick<
  ResolvedMcpOptions,
  | 'taskTtlMs'
  | 'maxTaskTtlMs'
  | 'taskPollIntervalMs'
  | 'taskHandoffMs'
  | 'maxTasksPerPrincipal'
  | 'maxTasksPerInstance'
  | 'maxTaskResultBytes'
  | 'taskShutdownGraceMs'
  | 'maxTaskBytesPerCaller'
  | 'maxStoredTasks'
  | 'maxStoredTaskBytes'
  | 'taskResultTtlMs'
  | 'taskPollRateLimit'
>;

/** Each option of the `tasks` group, by the resolved name it fills. */
const NAMES: Record<
  Exclude<keyof McpTasksOptions, 'pollRateLimit'>,
  Exclude<keyof ResolvedTaskOptions, 'taskPollRateLimit'>
> = {
  ttlMs: 'taskTtlMs',
  maxTtlMs: 'maxTaskTtlMs',
  pollIntervalMs: 'taskPollIntervalMs',
  handoffMs: 'taskHandoffMs',
  maxPerCaller: 'maxTasksPerPrincipal',
  maxPerInstance: 'maxTasksPerInstance',
  maxResultBytes: 'maxTaskResultBytes',
  shutdownGraceMs: 'taskShutdownGraceMs',
  maxBytesPerCaller: 'maxTaskBytesPerCaller',
  maxStored: 'maxStoredTasks',
  maxStoredBytes: 'maxStoredTaskBytes',
  resultTtlMs: 'taskResultTtlMs',
};

export const TASK_OPTION_DEFAULTS: ResolvedTaskOptions = {
  taskTtlMs: 3_600_000,
  maxTaskTtlMs: 86_400_000,
  taskPollIntervalMs: 1_000,
  taskHandoffMs: 100,
  maxTasksPerPrincipal: 100,
  maxTasksPerInstance: 1_000,
  maxTaskResultBytes: 1_048_576,
  taskShutdownGraceMs: 5_000,
  maxTaskBytesPerCaller: 16_777_216,
  maxStoredTasks: 10_000,
  maxStoredTaskBytes: 268_435_456,
  taskResultTtlMs: 600_000,
  taskPollRateLimit: Object.freeze({ limit: 600, windowMs: 10_000 }),
};

const POSITIVE_INTEGERS = [
  'ttlMs',
  'maxTtlMs',
  'pollIntervalMs',
  'maxPerCaller',
  'maxPerInstance',
  'maxResultBytes',
  'maxBytesPerCaller',
  'maxStored',
  'maxStoredBytes',
  'resultTtlMs',
] as const;
const NON_NEGATIVE = ['handoffMs', 'shutdownGraceMs'] as const;

/** The problems of the `tasks` options, as messages. */
export function taskOptionProblems(tasks: McpTasksOptions | undefined): string[] {
  const problems: string[] = [];
  for (const name of POSITIVE_INTEGERS) {
    const value = tasks?.[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      problems.push(`McpModule option 'tasks.${name}' must be a positive integer, got ${String(value)}`);
    }
  }
  for (const name of NON_NEGATIVE) {
    const value = tasks?.[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      problems.push(`McpModule option 'tasks.${name}' must be zero or more, got ${String(value)}`);
    }
  }
  const poll = tasks?.pollRateLimit;
  if (
    poll !== undefined &&
    poll !== false &&
    !(
      typeof poll === 'object' &&
      poll !== null &&
      Number.isSafeInteger(poll.limit) &&
      poll.limit > 0 &&
      Number.isFinite(poll.windowMs) &&
      poll.windowMs > 0
    )
  ) {
    problems.push(
      "McpModule option 'tasks.pollRateLimit' needs a positive integer 'limit' and a positive 'windowMs', or false",
    );
  }
  // No single caller may fill the store for everyone: its budget stays below the global bounds.
  const resolved = resolveTaskOptions(tasks);
  if (problems.length === 0 && resolved.maxTasksPerPrincipal >= resolved.maxStoredTasks) {
    problems.push(
      `McpModule option 'tasks.maxPerCaller' (${resolved.maxTasksPerPrincipal}) must be below 'tasks.maxStored' (${resolved.maxStoredTasks})`,
    );
  }
  if (problems.length === 0 && resolved.maxTaskBytesPerCaller >= resolved.maxStoredTaskBytes) {
    problems.push(
      `McpModule option 'tasks.maxBytesPerCaller' (${resolved.maxTaskBytesPerCaller}) must be below 'tasks.maxStoredBytes' (${resolved.maxStoredTaskBytes})`,
    );
  }
  for (const name of ['ttlMs', 'maxTtlMs', 'resultTtlMs'] as const) {
    const value = tasks?.[name];
    if (value !== undefined && value > MAX_TIMER_MS) {
      problems.push(`McpModule option 'tasks.${name}' must be at most ${MAX_TIMER_MS} ms, got ${String(value)}`);
    }
  }
  return problems;
}

/** The task options with defaults; the default time to live never exceeds the longest. */
export function resolveTaskOptions(tasks: McpTasksOptions | undefined): ResolvedTaskOptions {
  const resolved = { ...TASK_OPTION_DEFAULTS };
  for (const [name, target] of Object.entries(NAMES) as [keyof typeof NAMES, (typeof NAMES)[keyof typeof NAMES]][]) {
    const value = tasks?.[name];
    if (value !== undefined) resolved[target] = value;
  }
  const poll = tasks?.pollRateLimit;
  if (poll !== undefined) resolved.taskPollRateLimit = poll === false ? undefined : { ...poll };
  resolved.taskTtlMs = Math.min(resolved.taskTtlMs, resolved.maxTaskTtlMs);
  return resolved;
}

/** The bounds a task store keeps for every task, from the resolved options. */
export function taskLimitsOf(options: ResolvedTaskOptions): McpTaskLimits {
  return Object.freeze({
    maxPerCaller: options.maxTasksPerPrincipal,
    maxBytesPerCaller: options.maxTaskBytesPerCaller,
    maxStored: options.maxStoredTasks,
    maxStoredBytes: options.maxStoredTaskBytes,
    resultTtlMs: options.taskResultTtlMs,
  });
}
