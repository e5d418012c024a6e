import { Inject, Injectable } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-options.resolver.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpResourceNotFoundException } from '../../errors/mcp-protocol.exceptions.js';
import { McpResourceRegistry, type McpResourceEntry } from '../../registry/mcp-resource.registry.js';
import { cursorOf } from './tools.handler.js';
import { requireString } from './params.js';
import type { McpMethodFn, McpMethodGroup } from './mcp-method.types.js';

/** `resources/list` and `resources/read`. */
@Injectable()
export class ResourcesHandler implements McpMethodGroup {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly resources: McpResourceRegistry,
  ) {}

  methods(): Record<string, McpMethodFn> {
    return {
      'resources/list': async (params) => this.list(params),
      'resources/read': (params, ctx) => this.read(params, ctx),
    };
  }

  capability(): [string, Record<string, unknown>] | undefined {
    return this.available ? ['resources', { subscribe: this.options.sessions, listChanged: true }] : undefined;
  }

  /** Resources may be registered at runtime, so availability is checked per request. */
  get available(): boolean {
    return this.resources.inUse;
  }

  private list(params: Record<string, unknown>) {
    const page = this.resources.page(params.cursor, this.options.pageSize);
    return { resources: page.items.map((resource) => resource.descriptor), ...cursorOf(page.nextCursor) };
  }

  private async read(params: Record<string, unknown>, ctx: McpRequestContext) {
    const uri = requireString(params, 'uri');
    const resource = this.resources.get(uri);
    if (!resource) throw new McpResourceNotFoundException(uri);
    const value = await resource.handler({ uri }, ctx);
    return { contents: toContents(resource, value) };
  }
}

/**
 * A handler returns the whole `{ contents }`, or one value: a string (text), bytes (base64
 * `blob`) or anything else (JSON text).
 */
function toContents(resource: McpResourceEntry, value: unknown): unknown[] {
  if (typeof value === 'object' && value !== null && Array.isArray((value as { contents?: unknown }).contents)) {
    return (value as { contents: unknown[] }).contents;
  }
  const { uri, mimeType } = resource;
  if (typeof value === 'string') return [{ uri, mimeType: mimeType ?? 'text/plain', text: value }];
  if (value instanceof Uint8Array) {
    return [{ uri, mimeType: mimeType ?? 'application/octet-stream', blob: Buffer.from(value).toString('base64') }];
  }
  return [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value ?? null) }];
}
