import type { McpIcon } from './mcp-icon.interface.js';

/** One argument of a prompt. @publicApi */
export interface McpPromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** Options of `@McpPrompt()`. @publicApi */
export interface McpPromptOptions {
  name: string;
  title?: string;
  description: string;
  arguments?: McpPromptArgument[];
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
}
