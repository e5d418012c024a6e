export const GATEWAY_NAME = 'mcp-resource-gateway';
export const GATEWAY_VERSION = '0.1.0';
