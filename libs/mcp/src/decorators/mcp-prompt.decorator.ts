import { SetMetadata } from '@nestjs/common';
import { MCP_PROMPT_METADATA } from '../mcp.constants.js';
import type { McpPromptOptions } from '../interfaces/mcp-prompt-options.interface.js';

/**
 * Declares a provider method as a prompt. The method receives `(arguments, ctx)` and returns
 * `{ description?, messages }`, an array of messages, or a string (one user text message).
 * @publicApi
 */
export const McpPrompt = (options: McpPromptOptions): MethodDecorator => SetMetadata(MCP_PROMPT_METADATA, options);
