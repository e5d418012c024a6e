import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpResourceRegistry, type McpResourceEntry } from '../../registry/mcp-resource.registry.js';
import { McpResourceTemplateRegistry } from '../../registry/mcp-resource-template.registry.js';
import { listResult } from './list-page.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/**
 * The pages of `resources/list` and `resources/templates/list` as one caller sees them: what
 * its scopes let it see, what the plugged extensions show it, never an unlisted resource.
 */
@Injectable()
export class McpResourceLists {
  constructor(
    @McpOptions('server') private readonly options: McpOptionGroup<'server'>,
    private readonly resources: McpResourceRegistry,
    private readonly templates: McpResourceTemplateRegistry,
    private readonly access: McpAccessPolicy,
    private readonly plugged: McpExtensions,
  ) {}

  resourcesPage(params: Record<string, unknown>, ctx: McpRequestContext): Record<string, unknown> {
    const shown = this.plugged.resourcesShownTo(ctx, this.access.visibleTo(ctx));
    const base = shown.filter;
    const listed = this.resources.hasUnlisted
      ? (entry: McpResourceEntry) => !entry.unlisted && (base === undefined || base(entry))
      : base;
    const page = this.resources.page(params.cursor, this.options.pageSize, listed);
    return listResult('resources', page, shown.describe);
  }

  templatesPage(params: Record<string, unknown>, ctx: McpRequestContext): Record<string, unknown> {
    const page = this.templates.page(params.cursor, this.options.pageSize, this.access.visibleTo(ctx));
    return listResult('resourceTemplates', page);
  }
}
