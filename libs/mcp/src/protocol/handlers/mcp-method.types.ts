// The method types are part of the extension contract (`extension/`), below the core; the
// method groups keep importing them here.
export type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
