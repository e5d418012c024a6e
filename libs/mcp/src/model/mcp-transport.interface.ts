/** The transports a request can arrive on. @publicApi */
export type McpTransportKind = 'streamable-http' | 'websocket' | 'sse' | 'stdio';
