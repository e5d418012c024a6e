export * from './mcp-tool.registry.js';
export * from './mcp-prompt.registry.js';
export * from './mcp-resource.registry.js';
export type { Page } from './keyed-collection.js';
export type { McpHandlerFn } from '../context/mcp-handler.types.js';
