import { SetMetadata } from '@nestjs/common';
import { MCP_TOOL_METADATA } from '../mcp.constants.js';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface.js';

/**
 * Declares a provider method as an MCP tool. The method receives `(args, ctx)`, or whatever
 * its parameter decorators (`@McpArgs()`, `@McpCtx()`, ...) select; guards, interceptors,
 * pipes and filters apply as on a controller route.
 *
 * @example
 * ```ts
 * @McpTool({ name: 'add', description: 'Adds two numbers', input: AddDto, output: SumDto })
 * add(@McpArgs() { a, b }: AddDto) { return { sum: a + b }; }
 * ```
 * @publicApi
 */
export const McpTool = (options: McpToolOptions): MethodDecorator => SetMetadata(MCP_TOOL_METADATA, options);
