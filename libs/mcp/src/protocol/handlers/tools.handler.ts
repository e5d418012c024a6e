import { HttpException, Inject, Injectable } from '@nestjs/common';
import { errorTextOf } from '../../results/error-text.js';
import { MCP_RESOLVED_OPTIONS } from '../../mcp.constants.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpException } from '../../errors/mcp.exception.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpToolRegistry, type McpToolEntry } from '../../registry/mcp-tool.registry.js';
import { isToolResult, textContent, toolError, type McpToolResult } from '../../results/tool-result.helpers.js';
import { httpExceptionDetail, McpErrorMapper } from '../mcp-error.mapper.js';
import { isAtLeast } from '../../model/protocol-version.js';
import { optionalObject, requireString } from './params.js';
import { listResult } from './list-page.js';
import { McpToolHooks } from '../../hooks/mcp-tool-hooks.js';
import { McpToolRateLimiter } from '../tool-rate-limiter.js';
import { McpInputRequiredSignal } from '../modern/input-round.js';
import type { McpMethodFn, McpMethodGroup } from './mcp-method.types.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpBackendUnavailableError } from '../../backend/mcp-backend.interface.js';
import { McpMethods } from './mcp-methods.js';
import { McpExtensions } from '../../extension/mcp-extensions.js';
import { McpTasks } from '../tasks/mcp-tasks.service.js';
import { toolDescriberFor } from '../tasks/task-tools.js';

/** Programming errors: their text may reveal internals, so the model only gets a correlation id. */
const INTERNAL_ERROR_TYPES = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/** Unauthorized, Forbidden, Too Many Requests. */
const PROTOCOL_STATUSES = new Set([401, 403, 429]);

/** `tools/list` and `tools/call`. */
@Injectable()
export class ToolsHandler implements McpMethodGroup {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly tools: McpToolRegistry,
    private readonly errors: McpErrorMapper,
    private readonly hooks: McpToolHooks,
    private readonly rateLimiter: McpToolRateLimiter,
    private readonly access: McpAccessPolicy,
    private readonly plugged: McpExtensions,
    private readonly tasks: McpTasks,
    methods: McpMethods,
  ) {
    methods.add(this);
  }

  methods(): Record<string, McpMethodFn> {
    return {
      'tools/list': async (params, ctx) => this.list(params, ctx),
      'tools/call': (params, ctx) => this.call(params, ctx),
    };
  }

  capability(): [string, Record<string, unknown>] | undefined {
    return this.tools.size > 0 ? ['tools', { listChanged: true }] : undefined;
  }

  private list(params: Record<string, unknown>, ctx: McpRequestContext) {
    const shown = this.plugged.toolsShownTo(ctx, this.access.visibleTo(ctx));
    const page = this.tools.page(params.cursor, this.options.pageSize, shown.filter);
    return this.access.privateFor(listResult('tools', page, toolDescriberFor(ctx.era, shown.describe)), ctx);
  }

  private async call(params: Record<string, unknown>, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const name = requireString(params, 'name');
    // Hooks are awaited only when there are any: most servers register none.
    const hooked = this.hooks.size > 0;
    const found = this.tools.get(name);
    // Visibility: an extension may hide a tool from a caller (MCP Apps: an app-only tool does not
    // exist for a host that renders no apps); it is then answered as unknown.
    const tool = found && this.plugged.callable(found, ctx) ? found : undefined;
    if (!tool) {
      const unknown = new McpInvalidParamsException(`Unknown tool '${name}'`, { name });
      if (hooked) await this.hooks.rejected({ tool: name, reason: 'unknown-tool', error: unknown, context: ctx });
      throw unknown;
    }
    try {
      this.access.assert(tool, ctx);
    } catch (error) {
      if (hooked) await this.hooks.rejected({ tool: tool.name, reason: 'forbidden', error, context: ctx });
      throw error;
    }
    // Whether it runs as a task; a call the tool's task support does not allow is refused here.
    const mode = this.tasks.modeOf(tool, params, ctx);
    try {
      await this.rateLimiter.take(ctx);
    } catch (error) {
      if (hooked) await this.hooks.rejected({ tool: tool.name, reason: 'rate-limited', error, context: ctx });
      throw error;
    }
    const validation = await tool.input.validate(optionalObject(params, 'arguments'));
    if (!validation.ok) {
      const detail = `Invalid arguments for tool '${tool.name}': ${validation.errors.join('; ')}`;
      if (hooked) {
        await this.hooks.rejected({
          tool: tool.name,
          reason: 'invalid-arguments',
          error: new Error(detail),
          context: ctx,
        });
      }
      return this.invalidArguments(detail, ctx);
    }
    const args = validation.value;
    if (mode.kind === 'inline') return this.execute(tool, args, ctx, hooked);
    return this.tasks.start(mode, ctx, (context) => this.execute(tool, args, context, hooked), tool.requiredScopes);
  }

  /** Runs the tool with its hooks and shapes its result (in its request, or as a task). */
  private async execute(
    tool: McpToolEntry,
    args: unknown,
    ctx: McpRequestContext,
    hooked: boolean,
  ): Promise<McpToolResult> {
    const event = { tool: tool.name, arguments: args, context: ctx };
    if (hooked) await this.hooks.invoking(event);
    const started = performance.now();
    let result: McpToolResult;
    try {
      result = await this.shape(tool, await tool.handler(args, ctx), ctx);
    } catch (error) {
      // A round of a multi round-trip request ended: the tool runs again on the retry.
      if (error instanceof McpInputRequiredSignal) throw error;
      if (hooked) await this.hooks.failed({ ...event, error, durationMs: performance.now() - started });
      return this.failure(tool, error, ctx);
    }
    if (!hooked) return result;
    const durationMs = performance.now() - started;
    if (result.isError) await this.hooks.failed({ ...event, error: new Error(errorTextOf(result)), durationMs });
    else await this.hooks.completed({ ...event, result, durationMs });
    return result;
  }

  /**
   * An `isError` result from 2025-11-25 on (SEP-1303: the model reads it and corrects its call), `-32602`
   * before it; see docs/decisions/0002-error-codes-and-http-statuses.md.
   */
  private invalidArguments(text: string, ctx: McpRequestContext): McpToolResult {
    if (isAtLeast(ctx.protocolVersion, '2025-11-25')) return toolError(text);
    throw new McpInvalidParamsException(text);
  }

  private failure(tool: McpToolEntry, error: unknown, ctx: McpRequestContext): McpToolResult {
    // A backend outage is the server's, not the tool's: 503 with Retry-After, as everywhere,
    // and its text (hosts, ports) stays in the server's log.
    if (error instanceof McpException || error instanceof McpBackendUnavailableError) throw error;
    if (error instanceof HttpException) {
      const status = error.getStatus();
      // Guards and rate limiters throw these through the same path: they stay protocol errors.
      if (PROTOCOL_STATUSES.has(status)) throw error;
      if (status === 400 || status === 422) {
        return this.invalidArguments(`Invalid arguments for tool '${tool.name}': ${httpExceptionDetail(error)}`, ctx);
      }
      if (status < 500) return toolError(httpExceptionDetail(error));
      return toolError(this.errors.internal(error, `tools/call ${tool.name}`).detail!);
    }
    if (!(error instanceof Error) || INTERNAL_ERROR_TYPES.some((type) => error.constructor === type)) {
      return toolError(this.errors.internal(error, `tools/call ${tool.name}`).detail!);
    }
    return toolError(error.message);
  }

  private async shape(tool: McpToolEntry, value: unknown, ctx: McpRequestContext): Promise<McpToolResult> {
    if (isToolResult(value)) return value;
    if (tool.output) {
      const checked = await tool.output.validate(value);
      if (!checked.ok) {
        const failure = this.errors.internal(
          new Error(
            `Tool '${tool.name}' returned output that does not match its output schema: ${checked.errors.join('; ')}`,
          ),
          ctx.method,
        );
        return toolError(failure.detail!);
      }
      // Serialized once: the text block, and (parsed back) plain JSON for structuredContent.
      const text = JSON.stringify(value);
      return { content: [textContent(text)], structuredContent: JSON.parse(text) as Record<string, unknown> };
    }
    if (value === undefined) return { content: [] };
    return { content: [textContent(typeof value === 'string' ? value : JSON.stringify(value))] };
  }
}
