import { Injectable } from '@nestjs/common';
import type { ChannelContext } from '../../context/channel-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpToolRegistry } from '../../registry/mcp-tool.registry.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpExtensions, planAdmits, planRunner } from '../../extension/mcp-extensions.js';
import { McpToolRateLimiter } from '../tool-rate-limiter.js';
import { optionalObject, requireString } from './params.js';
import { McpToolRun } from './tool-run.js';
import { McpToolHooks } from '../../hooks/mcp-tool-hooks.js';

/**
 * `tools/call`, one pipeline for every tool, each step in its place: find the tool; visibility
 * (every plugged extension's `callable`: a tool hidden from this caller is unknown to it);
 * access (`@RequireScopes()`); the task mode (every plugged extension's `runsCall`: tasks run a
 * call as a task, and refuse here a call the tool's task support does not allow); the rate limit; argument validation; then the hooks and the tool
 * (`McpToolRun`), in the request or as a task. Every refusal is told to the hooks with its reason.
 */
@Injectable()
export class McpToolCallPipeline {
  constructor(
    private readonly tools: McpToolRegistry,
    private readonly extensions: McpExtensions,
    private readonly access: McpAccessPolicy,
    private readonly rateLimiter: McpToolRateLimiter,
    private readonly run: McpToolRun,
    private readonly hooks: McpToolHooks,
  ) {}

  async call(params: Record<string, unknown>, ctx: ChannelContext): Promise<Record<string, unknown>> {
    const name = requireString(params, 'name');
    // Hooks are awaited only when there are any: most servers register none.
    const hooked = this.hooks.size > 0;
    const found = this.tools.get(name);
    // The tool's steps, decided once per tool: a plain tool's call asks no extension anything.
    const plan = found && this.extensions.planOf(found);
    const tool = found && planAdmits(plan!, ctx) ? found : undefined;
    if (!tool) {
      const unknown = new McpInvalidParamsException(`Unknown tool '${name}'`, { name });
      if (hooked) await this.run.rejected({ tool: name, reason: 'unknown-tool', error: unknown, context: ctx });
      throw unknown;
    }
    try {
      this.access.assert(tool, ctx);
    } catch (error) {
      if (hooked) await this.run.rejected({ tool: tool.name, reason: 'forbidden', error, context: ctx });
      throw error;
    }
    // The task mode: how the call runs (as a task, say), asked of the plugged extensions.
    const runner = planRunner(plan!, params, ctx);
    try {
      // Awaited only when the limit is shared (a backend round trip): a local one answers at once.
      const taken = this.rateLimiter.take(ctx);
      if (taken) await taken;
    } catch (error) {
      if (hooked) await this.run.rejected({ tool: tool.name, reason: 'rate-limited', error, context: ctx });
      throw error;
    }
    const checked = tool.input.validate(optionalObject(params, 'arguments'));
    const validation = checked instanceof Promise ? await checked : checked;
    if (!validation.ok) {
      const detail = `Invalid arguments for tool '${tool.name}': ${validation.errors.join('; ')}`;
      if (hooked) {
        await this.run.rejected({
          tool: tool.name,
          reason: 'invalid-arguments',
          error: new Error(detail),
          context: ctx,
        });
      }
      return this.run.invalidArguments(detail, ctx);
    }
    const args = validation.value;
    if (!runner) return this.run.execute(tool, args, ctx, hooked);
    return runner((context) => this.run.execute(tool, args, context, hooked));
  }
}
