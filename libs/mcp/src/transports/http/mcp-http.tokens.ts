/** DI token of the POST paths whose bodies the MCP body reader owns (from the module extras). */
export const MCP_BODY_PATHS = Symbol('MCP_BODY_PATHS');
