/**
 * Whether a tool runs as a task (a long-running call the client polls instead of holding its
 * request open):
 * - `forbidden` (the default): always in its request;
 * - `optional`: as a task when the client can poll one (2025-11-25: it asks with `params.task`;
 *   tasks extension: it declared the extension, and the call outlasts the handoff window);
 * - `required`: only as a task; a client that cannot poll one is refused (`-32601` in
 *   2025-11-25 without `params.task`, `-32021` naming the extension in 2026-07-28).
 * @publicApi
 */
export type McpTaskSupport = 'forbidden' | 'optional' | 'required';

/** The values of `McpTaskSupport`. */
export const TASK_SUPPORT_VALUES: readonly McpTaskSupport[] = ['forbidden', 'optional', 'required'];
