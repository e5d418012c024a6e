import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpResourceNotFoundException } from '../errors/mcp-protocol.exceptions.js';
import { McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { McpResourceTemplateRegistry } from '../registry/mcp-resource-template.registry.js';
import { assertUriLength } from '../templates/index.js';
import { toContents } from './resource-contents.js';

/**
 * Finds what serves a URI: the exact resource first, else the first matching template. Shared
 * by `resources/read` and `resources/subscribe`, so both agree on what exists.
 */
@Injectable()
export class McpResourceResolver {
  constructor(
    private readonly resources: McpResourceRegistry,
    private readonly templates: McpResourceTemplateRegistry,
  ) {}

  /** True once resources or templates exist or were registered at runtime. */
  get inUse(): boolean {
    return this.resources.inUse || this.templates.size > 0;
  }

  /**
   * Reads a URI into `contents`. URIs over the length cap answer `-32602`; unknown ones
   * `-32002`. Handler errors propagate.
   */
  async read(uri: string, ctx: McpRequestContext): Promise<unknown[]> {
    assertUriLength(uri);
    const resource = this.resources.get(uri);
    if (resource) return toContents(uri, resource.mimeType, await resource.handler({ uri }, ctx));
    const match = this.templates.match(uri);
    if (!match) throw new McpResourceNotFoundException(uri);
    const value = await match.entry.handler({ uri, variables: match.variables }, ctx);
    return toContents(uri, match.entry.mimeType, value);
  }

  /**
   * True when `uri` can be subscribed to: an exact resource, or a URI that a template matches
   * and whose handler resolves it (reads it without an error).
   */
  async exists(uri: string, ctx: McpRequestContext): Promise<boolean> {
    assertUriLength(uri);
    if (this.resources.has(uri)) return true;
    const match = this.templates.match(uri);
    if (!match) return false;
    try {
      await match.entry.handler({ uri, variables: match.variables }, ctx);
      return true;
    } catch {
      return false;
    }
  }
}
