import { Injectable } from '@nestjs/common';
import type { McpEra } from '../inbound/inbound.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';

/**
 * The methods both eras serve. MCP 2026-07-28 removed `initialize`, `ping`, sessions'
 * subscriptions and `logging/setLevel`; groups that exist only in it register as `'modern'`.
 */
const SHARED_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
]);

/** The eras a method is served in: both for a shared method or when `only` says so, else `only` or the 2025 era. */
function erasOf(name: string, only: McpEra | 'both' | undefined): readonly McpEra[] {
  if (only === 'both' || (only === undefined && SHARED_METHODS.has(name))) return ['legacy', 'modern'];
  return [only ?? 'legacy'];
}

interface Entry {
  readonly fn: McpMethodFn;
  readonly group: McpMethodGroup;
}

/**
 * The method table of the protocol core: every method group (`tools/*`, `resources/*`, ...)
 * registers itself here when it is built, and so do the extensions' methods (`McpExtensionHost`);
 * the eras look their methods up here. It also derives what the groups and the plugged
 * extensions declare: the capabilities of each era, and whether a feature is there at all (a
 * method of an absent feature is not found).
 */
@Injectable()
export class McpMethods {
  /** Each era's table. */
  private readonly tables: Record<McpEra, Map<string, Entry>> = { legacy: new Map(), modern: new Map() };
  private readonly groups: McpMethodGroup[] = [];

  constructor(private readonly extensions: McpExtensions) {}

  /**
   * Adds a group's methods: the base protocol's in the eras that have them; `only` restricts
   * them to one era (`server/discover`, `subscriptions/listen`), `'both'` serves all of them in
   * both (an extension's methods, which no base revision names).
   */
  add(group: McpMethodGroup, only?: McpEra | 'both'): void {
    this.groups.push(group);
    for (const [name, fn] of Object.entries(group.methods())) {
      const entry = { fn, group };
      for (const era of erasOf(name, only)) this.tables[era].set(name, entry);
    }
  }

  /** True for a method of either era's table (whether its feature is present or not): a name the server knows. */
  serves(method: string): boolean {
    return this.tables.legacy.has(method) || this.tables.modern.has(method);
  }

  /** The implementation of `method` in `era`, when it is served there and its feature is present. */
  find(era: McpEra, method: string): McpMethodFn | undefined {
    const entry = this.tables[era].get(method);
    return entry && entry.group.available?.() !== false ? entry.fn : undefined;
  }

  /**
   * Capabilities are declared only for the features that exist (`initialize`), and the
   * extensions the server serves (each present extension's, under `capabilities.extensions`).
   */
  capabilities(era: McpEra = 'legacy'): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {};
    for (const group of this.groups) {
      const entry = group.capability?.();
      if (entry) capabilities[entry[0]] = entry[1];
    }
    return this.extensions.capabilities(capabilities, era);
  }

  /** The modern era's (`server/discover`): resource subscriptions always offered (`subscriptions/listen` needs no session). */
  modernCapabilities(): Record<string, unknown> {
    const capabilities = this.capabilities('modern');
    if (capabilities.resources) capabilities.resources = { ...capabilities.resources, subscribe: true };
    return capabilities;
  }
}
