import { Injectable } from '@nestjs/common';
import { MODERN_PROTOCOL_VERSIONS } from '../../mcp.constants.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpMethods } from './mcp-methods.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/**
 * `server/discover` (MCP 2026-07-28): the versions, capabilities and identity of the server.
 * Only modern versions are listed: the legacy ones are reached through `initialize`, and a
 * client that picked one of them here would send it in a modern `_meta`, which is refused.
 */
@Injectable()
export class DiscoverHandler implements McpMethodGroup {
  constructor(
    @McpOptions('server') private readonly options: McpOptionGroup<'server'>,
    private readonly table: McpMethods,
  ) {
    table.add(this, 'modern');
  }

  methods(): Record<string, McpMethodFn> {
    return { 'server/discover': async () => this.discover() };
  }

  private discover(): Record<string, unknown> {
    const result: Record<string, unknown> = {
      supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
      capabilities: this.table.modernCapabilities(),
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }
}
