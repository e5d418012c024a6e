import { Injectable } from '@nestjs/common';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpResourceNotFoundException } from '../errors/mcp-protocol.exceptions.js';
import { McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { McpResourceTemplateRegistry } from '../registry/mcp-resource-template.registry.js';
import { assertUriLength } from '../templates/index.js';
import { toContents } from '../results/resource-contents.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';

/**
 * Finds what serves a URI: the exact resource first, else the first matching template. Shared
 * by `resources/read` and `resources/subscribe`, so both agree on what exists.
 */
@Injectable()
export class McpResourceResolver {
  constructor(
    private readonly resources: McpResourceRegistry,
    private readonly templates: McpResourceTemplateRegistry,
    private readonly access: McpAccessPolicy,
  ) {}

  /** True once resources or templates exist or were registered at runtime. */
  get inUse(): boolean {
    return this.resources.inUse || this.templates.size > 0;
  }

  /**
   * Reads a URI into `contents`, with the caching hints of what served it. URIs over the length
   * cap answer `-32602`; unknown ones `-32002`. Handler errors propagate.
   */
  async read(uri: string, ctx: McpRequestContext): Promise<{ contents: unknown[]; cache?: McpCacheHints }> {
    assertUriLength(uri);
    const resource = this.resources.get(uri);
    if (resource) {
      this.access.assert(resource, ctx);
      return {
        contents: toContents(uri, resource.mimeType, await resource.handler({ uri }, ctx)),
        cache: resource.cache,
      };
    }
    const match = this.templates.match(uri);
    if (!match) throw new McpResourceNotFoundException(uri);
    this.access.assert(match.entry, ctx);
    const value = await match.entry.handler({ uri, variables: match.variables }, ctx);
    return { contents: toContents(uri, match.entry.mimeType, value), cache: match.entry.cache };
  }

  /**
   * True when `uri` can be subscribed to: an exact resource, or a URI that a template matches and
   * that the template's `exists` hook (if it has one) accepts. The template's handler is never
   * called: existence is the template's question, a read is not. An error of the hook (a guard
   * refusing, a database down) propagates as itself, so it is never mistaken for "not found".
   * Subscribing needs the same right as reading: a caller without the scopes of what serves the
   * URI gets 403 `insufficient_scope` here.
   */
  async exists(uri: string, ctx: McpRequestContext): Promise<boolean> {
    assertUriLength(uri);
    const resource = this.resources.get(uri);
    if (resource) {
      this.access.assert(resource, ctx);
      return true;
    }
    const match = this.templates.match(uri);
    if (!match) return false;
    this.access.assert(match.entry, ctx);
    if (!match.entry.exists) return true;
    return (await match.entry.exists({ uri, variables: match.variables }, ctx)) === true;
  }
}
