import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpToolRegistry } from '../../registry/mcp-tool.registry.js';
import { listResult } from './list-page.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpMethods } from './mcp-methods.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';
import { McpToolCallPipeline } from './tool-call.pipeline.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** `tools/list`, and `tools/call` through its pipeline (`McpToolCallPipeline`). */
@Injectable()
export class ToolsHandler implements McpMethodGroup {
  constructor(
    @McpOptions('server') private readonly options: McpOptionGroup<'server'>,
    private readonly tools: McpToolRegistry,
    private readonly access: McpAccessPolicy,
    private readonly plugged: McpExtensions,
    private readonly pipeline: McpToolCallPipeline,
    methods: McpMethods,
  ) {
    methods.add(this);
  }

  methods(): Record<string, McpMethodFn> {
    return {
      'tools/list': async (params, ctx) => this.list(params, ctx),
      // The pipeline's own method, bound: no forwarding function per call.
      'tools/call': this.pipeline.call.bind(this.pipeline),
    };
  }

  capability(): [string, Record<string, unknown>] | undefined {
    return this.tools.size > 0 ? ['tools', { listChanged: true }] : undefined;
  }

  private list(params: Record<string, unknown>, ctx: McpRequestContext) {
    const shown = this.plugged.toolsShownTo(ctx, this.access.visibleTo(ctx));
    const page = this.tools.page(params.cursor, this.options.pageSize, shown.filter);
    return this.access.privateFor(listResult('tools', page, shown.describe), ctx);
  }
}
