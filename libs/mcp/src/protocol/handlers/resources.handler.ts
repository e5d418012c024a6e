import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpResourceResolver } from '../../resources/mcp-resource.resolver.js';
import { withCacheHints } from '../../model/cache-hints.js';
import { requireString } from './params.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpMethods } from './mcp-methods.js';
import { McpResourceLists } from './resource-lists.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** `resources/list`, `resources/templates/list` and `resources/read`. */
@Injectable()
export class ResourcesHandler implements McpMethodGroup {
  constructor(
    @McpOptions('server') private readonly options: McpOptionGroup<'server'>,
    private readonly lists: McpResourceLists,
    private readonly resolver: McpResourceResolver,
    private readonly access: McpAccessPolicy,
    methods: McpMethods,
  ) {
    methods.add(this);
  }

  methods(): Record<string, McpMethodFn> {
    return {
      'resources/list': async (params, ctx) => this.access.privateFor(this.lists.resourcesPage(params, ctx), ctx),
      'resources/templates/list': async (params, ctx) =>
        this.access.privateFor(this.lists.templatesPage(params, ctx), ctx),
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

  private async read(params: Record<string, unknown>, ctx: McpRequestContext) {
    const { contents, cache } = await this.resolver.read(requireString(params, 'uri'), ctx);
    return this.access.privateFor(withCacheHints({ contents }, cache), ctx);
  }
}
