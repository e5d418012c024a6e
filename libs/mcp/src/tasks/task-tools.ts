import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { Page } from '../registry/keyed-collection.js';
import type { McpToolEntry } from '../registry/mcp-tool.registry.js';

type Listed = { readonly descriptor: Readonly<Record<string, unknown>>; readonly cache?: McpCacheHints };

/** The 2025-11-25 descriptor of each tool that declares task support, built once. */
const legacyDescriptors = new WeakMap<McpToolEntry, Readonly<Record<string, unknown>>>();

/**
 * The `tools/list` page of an era: 2025-11-25 shows a tool's `execution.taskSupport`; the tasks
 * extension has no such field (its client learns whether a call became a task from the result),
 * so the modern page is the registry's as it is.
 */
export function toolsPageFor(era: 'legacy' | 'modern', page: Page<McpToolEntry>): Page<Listed> {
  if (era === 'modern' || !page.items.some((tool) => tool.taskSupport !== undefined)) return page;
  return { ...page, items: page.items.map((tool) => (tool.taskSupport === undefined ? tool : withExecution(tool))) };
}

function withExecution(tool: McpToolEntry): Listed {
  let descriptor = legacyDescriptors.get(tool);
  if (!descriptor) {
    const execution = { ...(tool.descriptor.execution as object | undefined), taskSupport: tool.taskSupport };
    descriptor = Object.freeze({ ...tool.descriptor, execution });
    legacyDescriptors.set(tool, descriptor);
  }
  return { descriptor, cache: tool.cache };
}
