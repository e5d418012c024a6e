import { HttpException, Injectable } from '@nestjs/common';
import { errorTextOf } from '../../results/error-text.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpException } from '../../errors/mcp.exception.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import type { McpToolEntry } from '../../registry/mcp-tool.registry.js';
import type { CompiledSchema } from '../../schema/schema.types.js';
import { isToolResult, textContent, toolError, type McpToolResult } from '../../results/tool-result.helpers.js';
import { httpExceptionDetail, McpErrorMapper } from '../mcp-error.mapper.js';
import { isAtLeast } from '../../model/protocol-version.js';
import { McpToolHooks } from '../../hooks/mcp-tool-hooks.js';
import type { McpToolRejectedEvent } from '../../hooks/mcp-tool-hook.interface.js';
import { McpInputRequiredSignal } from '../modern/input-round.js';
import { McpBackendUnavailableError } from '../../backend/mcp-backend.interface.js';

/** Programming errors: their text may reveal internals, so the model only gets a correlation id. */
const INTERNAL_ERROR_TYPES = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/** Unauthorized, Forbidden, Too Many Requests. */
const PROTOCOL_STATUSES = new Set([401, 403, 429]);

/**
 * The last steps of `tools/call`, once the call is admitted: the hooks around the tool, the tool
 * itself, and the shaping of what it returned or threw into a result (in its request, or as a
 * task). It also tells the hooks of a call refused earlier in the pipeline.
 */
@Injectable()
export class McpToolRun {
  constructor(
    private readonly hooks: McpToolHooks,
    private readonly errors: McpErrorMapper,
  ) {}

  /** Tells the hooks of a call refused before it ran. */
  rejected(event: McpToolRejectedEvent): Promise<void> {
    return this.hooks.rejected(event);
  }

  /**
   * An `isError` result from 2025-11-25 on (SEP-1303: the model reads it and corrects its call), `-32602`
   * before it; see docs/decisions/0002-error-codes-and-http-statuses.md.
   */
  invalidArguments(text: string, ctx: McpRequestContext): McpToolResult {
    if (isAtLeast(ctx.protocolVersion, '2025-11-25')) return toolError(text);
    throw new McpInvalidParamsException(text);
  }

  /** Runs the tool with its hooks and shapes its result (in its request, or as a task). */
  async execute(tool: McpToolEntry, args: unknown, ctx: McpRequestContext, hooked: boolean): Promise<McpToolResult> {
    const event = { tool: tool.name, arguments: args, context: ctx };
    if (hooked) await this.hooks.invoking(event);
    const started = performance.now();
    let result: McpToolResult;
    try {
      const shaped = this.shape(tool, await tool.handler(args, ctx), ctx);
      result = shaped instanceof Promise ? await shaped : shaped;
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

  /** What the tool returned, as a result: at once, unless an output schema validates it first. */
  private shape(tool: McpToolEntry, value: unknown, ctx: McpRequestContext): McpToolResult | Promise<McpToolResult> {
    if (isToolResult(value)) return value;
    if (tool.output) return this.structured(tool, tool.output, value, ctx);
    if (value === undefined) return { content: [] };
    return { content: [textContent(typeof value === 'string' ? value : JSON.stringify(value))] };
  }

  /** A value checked against the tool's output schema, then its text block and `structuredContent`. */
  private async structured(
    tool: McpToolEntry,
    output: CompiledSchema,
    value: unknown,
    ctx: McpRequestContext,
  ): Promise<McpToolResult> {
    const checked = await output.validate(value);
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
}
