/** DI token of the Streamable HTTP path (from the module extras). */
export const MCP_HTTP_PATH = Symbol('MCP_HTTP_PATH');
