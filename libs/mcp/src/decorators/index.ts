export * from './mcp-tool.decorator.js';
export * from './mcp-resource.decorator.js';
export * from './mcp-prompt.decorator.js';
export * from './mcp-paramtype.enum.js';
export * from './mcp-params.decorator.js';
