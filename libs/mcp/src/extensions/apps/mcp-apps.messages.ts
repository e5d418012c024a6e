/** Texts of the MCP Apps bootstrap errors, in one place (the `mcp.messages.ts` pattern). */
export const UI_OUTSIDE_UI_SCHEME = (uri: string, where: string) =>
  `UI resource '${uri}' on ${where} is outside the ui:// scheme: MCP Apps serves UI resources under ui:// only`;
export const UI_RESOURCE_TEMPLATE = (template: string, where: string) =>
  `Resource template '${template}' on ${where} is in the ui:// scheme or has ui metadata: a UI resource has an exact URI (hosts read the one a tool names)`;
export const UI_MIME_TYPE = (uri: string, where: string, mimeType: string, expected: string) =>
  `UI resource '${uri}' on ${where} has mimeType '${mimeType}': a UI resource is '${expected}'`;
export const UI_META_TWICE = (where: string) =>
  `${where} gives ui metadata twice, in 'ui' and in '_meta': give it once, in 'ui'`;
export const INVALID_UI_META = (where: string, reason: string) => `Invalid MCP Apps metadata on ${where}: ${reason}`;
export const UNKNOWN_UI_RESOURCE = (tool: string, where: string, uri: string) =>
  `Tool '${tool}' on ${where} links to the UI resource '${uri}', which does not exist: declare it with @McpApp (or an @McpResource on a ui:// URI), or register it with McpResourceService in an onModuleInit`;
export const INVALID_APP_HTML = (where: string, reason: string) => `Invalid HTML of the MCP app on ${where}: ${reason}`;
