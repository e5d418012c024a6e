export * from './mcp.exception.js';
export * from './mcp-protocol.exceptions.js';
export * from './mcp-bootstrap.errors.js';
