import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';

/** Reads a required string parameter or answers `-32602` naming it. */
export function requireString(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  if (typeof value !== 'string') {
    throw new McpInvalidParamsException(
      value === undefined ? `Missing required parameter '${name}'` : `Parameter '${name}' must be a string`,
    );
  }
  return value;
}

/** Reads an optional object parameter (absent → `{}`) or answers `-32602` naming it. */
export function optionalObject(params: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = params[name];
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpInvalidParamsException(`Parameter '${name}' must be an object`);
  }
  return value as Record<string, unknown>;
}
