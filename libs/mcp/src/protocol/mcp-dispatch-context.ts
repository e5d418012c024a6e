// The dispatch context is declared beside the request context (`context/`), so that the
// extension contract, below the core, can name it; the core's files keep importing it here.
export type { McpDispatchContext } from '../context/mcp-dispatch-context.js';
