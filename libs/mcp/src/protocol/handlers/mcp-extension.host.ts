import { Injectable } from '@nestjs/common';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';
import type { McpExtension, McpExtensionMethod } from '../../extension/mcp-extension.interface.js';
import { McpToolRateLimiter } from '../tool-rate-limiter.js';
import type { McpMethodFn } from '../../extension/mcp-method.types.js';
import { McpMethods } from './mcp-methods.js';

/**
 * Where an extension plugs into the core (see `McpExtension`, docs/extensions.md). Its methods
 * join the method table in the eras each names, behind the rules each asks for, applied here and
 * nowhere else (the scopes, then the rate limit); the rest of what it contributes (capabilities,
 * list views, the `tools/call` visibility step, its metadata) is asked from it by the part of the
 * core that decides each, through `McpExtensions`.
 */
@Injectable()
export class McpExtensionHost {
  constructor(
    private readonly methods: McpMethods,
    private readonly extensions: McpExtensions,
    private readonly access: McpAccessPolicy,
    private readonly rateLimiter: McpToolRateLimiter,
  ) {}

  /** Plugs an extension in; it calls this once, from its constructor. */
  plug(extension: McpExtension): void {
    this.extensions.add(extension);
    const byEras = new Map<McpExtensionMethod['eras'] & string, Record<string, McpMethodFn>>();
    for (const [name, method] of Object.entries(extension.methods?.() ?? {})) {
      const eras = method.eras ?? 'both';
      byEras.set(eras, { ...byEras.get(eras), [name]: this.guarded(method) });
    }
    for (const [eras, fns] of byEras) {
      this.methods.add({ methods: () => fns, available: () => extension.present?.() !== false }, eras);
    }
  }

  /** An extension's method behind the rules it asks for: scopes first, then the rate limit. */
  private guarded({ run, requiredScopes, rateLimited }: McpExtensionMethod): McpMethodFn {
    if (!requiredScopes?.length && !rateLimited) return run;
    return async (params, ctx, dispatch) => {
      if (requiredScopes?.length) this.access.assert({ requiredScopes }, ctx);
      if (rateLimited) await this.rateLimiter.take(ctx, rateLimited === true ? 'toolCalls' : rateLimited);
      return run(params, ctx, dispatch);
    };
  }
}
