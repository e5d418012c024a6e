/**
 * Where a handler names the `resultType` of a modern-era result other than `complete` (the tasks
 * extension's `task`, for a `CreateTaskResult`). A symbol key: `JSON.stringify` ignores it, so no
 * client can set it through a tool's own result, and legacy answers stay as they were.
 */
export const RESULT_TYPE = Symbol('mcp:result-type');

/** A result that may name its modern `resultType`. */
export type TypedResult = Record<string, unknown> & { [RESULT_TYPE]?: string };
