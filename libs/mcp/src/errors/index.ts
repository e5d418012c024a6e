export * from './mcp.exception.js';
export * from './mcp-protocol.exceptions.js';
export * from './mcp-bootstrap.errors.js';
export * from './mcp-transport.exceptions.js';
export * from './mcp-modern.exceptions.js';
