import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';

/** The longest delay a Node.js timer takes (a task's time to live is one). */
const MAX_TIMER_MS = 2_147_483_647;

/** The task options after defaults. */
export type ResolvedTaskOptions = Required<
  Pick<
    McpModuleOptions,
    | 'taskTtlMs'
    | 'maxTaskTtlMs'
    | 'taskPollIntervalMs'
    | 'taskHandoffMs'
    | 'maxTasksPerPrincipal'
    | 'maxTasksPerInstance'
    | 'maxTaskResultBytes'
    | 'taskShutdownGraceMs'
  >
>;

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
  'taskTtlMs',
  'maxTaskTtlMs',
  'taskPollIntervalMs',
  'maxTasksPerPrincipal',
  'maxTasksPerInstance',
  'maxTaskResultBytes',
] as const;
const NON_NEGATIVE = ['taskHandoffMs', 'taskShutdownGraceMs'] as const;

/** The problems of the task options, as messages. */
export function taskOptionProblems(options: McpModuleOptions): string[] {
  const problems: string[] = [];
  for (const name of POSITIVE_INTEGERS) {
    const value = options?.[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      problems.push(`McpModule option '${name}' must be a positive integer, got ${String(value)}`);
    }
  }
  for (const name of NON_NEGATIVE) {
    const value = options?.[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      problems.push(`McpModule option '${name}' must be zero or more, got ${String(value)}`);
    }
  }
  for (const name of ['taskTtlMs', 'maxTaskTtlMs'] as const) {
    const value = options?.[name];
    if (value !== undefined && value > MAX_TIMER_MS) {
      problems.push(`McpModule option '${name}' must be at most ${MAX_TIMER_MS} ms, got ${String(value)}`);
    }
  }
  return problems;
}

/** The task options with defaults; the default time to live never exceeds the longest. */
export function resolveTaskOptions(options: McpModuleOptions): ResolvedTaskOptions {
  const resolved = { ...TASK_OPTION_DEFAULTS };
  for (const name of Object.keys(TASK_OPTION_DEFAULTS) as (keyof ResolvedTaskOptions)[]) {
    const value = options[name];
    if (value !== undefined) resolved[name] = value;
  }
  resolved.taskTtlMs = Math.min(resolved.taskTtlMs, resolved.maxTaskTtlMs);
  return resolved;
}
