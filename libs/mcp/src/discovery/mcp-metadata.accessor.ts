import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_PROMPT_METADATA, MCP_RESOURCE_METADATA, MCP_TOOL_METADATA } from '../mcp.constants.js';
import type { McpPromptOptions } from '../interfaces/mcp-prompt-options.interface.js';
import type { McpResourceOptions } from '../interfaces/mcp-resource-options.interface.js';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface.js';
import { MCP_TOOL_HOOK_METADATA } from '../hooks/mcp-tool-hook.decorator.js';

type Target = (...args: unknown[]) => unknown;

/** Reads MCP metadata off methods; null-safe for anything that is not a function. */
@Injectable()
export class McpMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  getTool(target: unknown): McpToolOptions | undefined {
    return this.read<McpToolOptions>(MCP_TOOL_METADATA, target);
  }

  getResource(target: unknown): McpResourceOptions | undefined {
    return this.read<McpResourceOptions>(MCP_RESOURCE_METADATA, target);
  }

  getPrompt(target: unknown): McpPromptOptions | undefined {
    return this.read<McpPromptOptions>(MCP_PROMPT_METADATA, target);
  }

  /** True for a class decorated with `@McpToolHook()`. */
  isToolHook(target: unknown): boolean {
    return (
      typeof target === 'function' && this.reflector.get<boolean>(MCP_TOOL_HOOK_METADATA, target as Target) === true
    );
  }

  private read<T>(key: string, target: unknown): T | undefined {
    return typeof target === 'function' ? this.reflector.get<T>(key, target as Target) : undefined;
  }
}
