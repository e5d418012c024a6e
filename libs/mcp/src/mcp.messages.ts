/** Texts of bootstrap errors, in one place (the `schedule.messages.ts` pattern). */
export const INVALID_TOOL_NAME = (name: string, where: string) =>
  `Invalid MCP tool name '${name}' on ${where}: a tool name is 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'`;
export const DUPLICATE_TOOL = (name: string, where: string, first: string) =>
  `Duplicate MCP tool name '${name}' on ${where}: already declared on ${first}`;
export const DUPLICATE_PROMPT = (name: string, where: string, first: string) =>
  `Duplicate MCP prompt name '${name}' on ${where}: already declared on ${first}`;
export const DUPLICATE_RESOURCE = (uri: string, where: string, first: string) =>
  `Duplicate MCP resource URI '${uri}' on ${where}: already declared on ${first}`;
export const INVALID_RESOURCE_URI = (uri: string, where: string) =>
  `Invalid MCP resource URI '${uri}' on ${where}: a resource URI needs a scheme, such as 'file://' or 'db://'`;
export const INVALID_SCHEMA = (where: string, reason: string) => `Invalid MCP schema on ${where}: ${reason}`;
export const INVALID_PROTOCOL_VERSION_SETTING = (value: string, supported: readonly string[]) =>
  `MCP_PROTOCOL_VERSION is '${value}', which is not a supported protocol version (${supported.join(', ')})`;
