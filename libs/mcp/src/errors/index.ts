// The errors of the public API: what a handler throws to answer with a protocol error, what the
// calls to the client (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`) throw, and the definition
// error that fails `app.init()`. The transports' rejections (HTTP 400, 403, 404, 405, 406, 413,
// 415, 429, 503) and the protocol's own errors are internal: the wire is their contract.
export { McpException } from './mcp.exception.js';
export { McpInvalidParamsException, McpResourceNotFoundException } from './mcp-protocol.exceptions.js';
export { McpMissingClientCapabilityException } from './mcp-modern.exceptions.js';
export {
  McpClientCapabilityError,
  McpClientRequestError,
  McpClientRequestTimeoutError,
  McpClientUnreachableError,
} from './client-request.errors.js';
export { McpDefinitionError } from './mcp-bootstrap.errors.js';
