import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpShown } from '../../extension/mcp-extension.interface.js';
import type { McpToolOptions } from '../../interfaces/mcp-tool-options.interface.js';
import { TASK_SUPPORT_VALUES, type McpTaskSupport } from '../../model/task-support.js';
import type { McpToolEntry } from '../../registry/mcp-tool.registry.js';
import { TASKS_EXTENSION } from './task-era.js';

/** A tool's `taskSupport` as declared (kept on its entry by the tasks extension); none is `forbidden`. */
export const taskSupportOf = (tool: McpToolEntry): McpTaskSupport | undefined =>
  tool.extensions?.[TASKS_EXTENSION] as McpTaskSupport | undefined;

/** A declared tool's `taskSupport`, checked: one of its values, or a definition error naming `source`. */
export function declaredTaskSupport(options: McpToolOptions, source: string): McpTaskSupport | undefined {
  const support = options.taskSupport;
  if (support !== undefined && !TASK_SUPPORT_VALUES.includes(support)) {
    throw new McpDefinitionError(
      `${source}: taskSupport must be one of ${TASK_SUPPORT_VALUES.join(', ')}, got '${String(support)}'`,
    );
  }
  return support;
}

/** The 2025-11-25 descriptor of each tool that declares task support, built once. */
const legacyDescriptors = new WeakMap<McpToolEntry, Readonly<Record<string, unknown>>>();

/**
 * How the 2025-11-25 `tools/list` describes a tool: with its `execution.taskSupport`, over what
 * the caller may see of it otherwise (MCP Apps' plain descriptor for a host without the
 * extension). The tasks extension has no such field (its client learns whether a call became a
 * task from the result), so the modern era describes a tool as it is.
 */
export const LEGACY_TASK_TOOLS: McpShown<McpToolEntry> = {
  describe: (tool, descriptor) => {
    if (taskSupportOf(tool) === undefined) return descriptor;
    if (descriptor !== tool.descriptor) return withExecution(tool, descriptor);
    let built = legacyDescriptors.get(tool);
    if (!built) legacyDescriptors.set(tool, (built = withExecution(tool, tool.descriptor)));
    return built;
  },
};

function withExecution(
  tool: McpToolEntry,
  descriptor: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const execution = { ...(descriptor.execution as object | undefined), taskSupport: taskSupportOf(tool) };
  return Object.freeze({ ...descriptor, execution });
}
