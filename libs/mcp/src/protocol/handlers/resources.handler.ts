import { Inject, Injectable } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../../mcp.constants.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpResourceRegistry, type McpResourceEntry } from '../../registry/mcp-resource.registry.js';
import { McpResourceTemplateRegistry } from '../../registry/mcp-resource-template.registry.js';
import { McpResourceResolver } from '../../resources/mcp-resource.resolver.js';
import { listResult } from './list-page.js';
import { withCacheHints } from '../../model/cache-hints.js';
import { requireString } from './params.js';
import type { McpMethodFn, McpMethodGroup } from './mcp-method.types.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpMethods } from './mcp-methods.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';

/** `resources/list`, `resources/templates/list` and `resources/read`. */
@Injectable()
export class ResourcesHandler implements McpMethodGroup {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly resources: McpResourceRegistry,
    private readonly templates: McpResourceTemplateRegistry,
    private readonly resolver: McpResourceResolver,
    private readonly access: McpAccessPolicy,
    private readonly plugged: McpExtensions,
    methods: McpMethods,
  ) {
    methods.add(this);
  }

  methods(): Record<string, McpMethodFn> {
    return {
      'resources/list': async (params, ctx) => this.list(params, ctx),
      'resources/templates/list': async (params, ctx) => this.listTemplates(params, ctx),
      'resources/read': (params, ctx) => this.read(params, ctx),
    };
  }

  capability(): [string, Record<string, unknown>] | undefined {
    return this.available() ? ['resources', { subscribe: this.options.sessions, listChanged: true }] : undefined;
  }

  /** Resources may be registered at runtime, so availability is checked per request. */
  available(): boolean {
    return this.resolver.inUse;
  }

  private list(params: Record<string, unknown>, ctx: McpRequestContext) {
    const shown = this.plugged.resourcesShownTo(ctx, this.access.visibleTo(ctx));
    const base = shown.filter;
    const listed = this.resources.hasUnlisted
      ? (entry: McpResourceEntry) => !entry.unlisted && (base === undefined || base(entry))
      : base;
    const page = this.resources.page(params.cursor, this.options.pageSize, listed);
    return this.access.privateFor(listResult('resources', page, shown.describe), ctx);
  }

  private listTemplates(params: Record<string, unknown>, ctx: McpRequestContext) {
    const page = this.templates.page(params.cursor, this.options.pageSize, this.access.visibleTo(ctx));
    return this.access.privateFor(listResult('resourceTemplates', page), ctx);
  }

  private async read(params: Record<string, unknown>, ctx: McpRequestContext) {
    const { contents, cache } = await this.resolver.read(requireString(params, 'uri'), ctx);
    return this.access.privateFor(withCacheHints({ contents }, cache), ctx);
  }
}
