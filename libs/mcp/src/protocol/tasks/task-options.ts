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
>;

/** Each option of the `tasks` group, by the resolved name it fills. */
const NAMES: Record<keyof McpTasksOptions, keyof ResolvedTaskOptions> = {
  ttlMs: 'taskTtlMs',
  maxTtlMs: 'maxTaskTtlMs',
  pollIntervalMs: 'taskPollIntervalMs',
  handoffMs: 'taskHandoffMs',
  maxPerCaller: 'maxTasksPerPrincipal',
  maxPerInstance: 'maxTasksPerInstance',
  maxResultBytes: 'maxTaskResultBytes',
  shutdownGraceMs: 'taskShutdownGraceMs',
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
};

const POSITIVE_INTEGERS = [
  'ttlMs',
  'maxTtlMs',
  'pollIntervalMs',
  'maxPerCaller',
  'maxPerInstance',
  'maxResultBytes',
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
  for (const name of ['ttlMs', 'maxTtlMs'] as const) {
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
  for (const [name, target] of Object.entries(NAMES) as [keyof McpTasksOptions, keyof ResolvedTaskOptions][]) {
    const value = tasks?.[name];
    if (value !== undefined) resolved[target] = value;
  }
  resolved.taskTtlMs = Math.min(resolved.taskTtlMs, resolved.maxTaskTtlMs);
  return resolved;
}
