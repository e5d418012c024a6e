import type { McpToolEntry } from '../../registry/mcp-tool.registry.js';

type Describe = (tool: McpToolEntry) => Readonly<Record<string, unknown>>;

/** The 2025-11-25 descriptor of each tool that declares task support, built once. */
const legacyDescriptors = new WeakMap<McpToolEntry, Readonly<Record<string, unknown>>>();

/**
 * How `tools/list` describes a tool in an era, over `describe` (what the caller may see of it,
 * MCP Apps' plain descriptor for a host without the extension): 2025-11-25 shows a tool's
 * `execution.taskSupport`; the tasks extension has no such field (its client learns whether a
 * call became a task from the result), so the modern era describes it as it is. Undefined when
 * every tool is listed as registered.
 */
export function toolDescriberFor(era: 'legacy' | 'modern', describe?: Describe): Describe | undefined {
  if (era === 'modern') return describe;
  return (tool) => {
    if (tool.taskSupport === undefined) return describe ? describe(tool) : tool.descriptor;
    return describe ? withExecution(tool, describe(tool)) : cachedWithExecution(tool);
  };
}

function cachedWithExecution(tool: McpToolEntry): Readonly<Record<string, unknown>> {
  let descriptor = legacyDescriptors.get(tool);
  if (!descriptor) legacyDescriptors.set(tool, (descriptor = withExecution(tool, tool.descriptor)));
  return descriptor;
}

function withExecution(
  tool: McpToolEntry,
  descriptor: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const execution = { ...(descriptor.execution as object | undefined), taskSupport: tool.taskSupport };
  return Object.freeze({ ...descriptor, execution });
}
