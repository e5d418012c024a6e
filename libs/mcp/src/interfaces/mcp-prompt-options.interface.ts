import type { McpCompleter } from './mcp-completion.interface.js';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { McpIcon } from './mcp-icon.interface.js';

/** One argument of a prompt. @publicApi */
export interface McpPromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
  /** Suggests values for `completion/complete` (declares the `completions` capability). */
  complete?: McpCompleter;
}

/** Options of `@McpPrompt()`. @publicApi */
export interface McpPromptOptions {
  name: string;
  title?: string;
  description: string;
  arguments?: McpPromptArgument[];
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
  /** Caching hints of `prompts/list` pages holding this prompt (modern era); the module's by default. */
  cache?: McpCacheHints;
}
