/** The identifier of the MCP Apps extension, the key in `capabilities.extensions`. */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an MCP Apps UI resource (an HTML5 document). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The URI scheme MCP Apps reserves for UI resources. */
export const UI_SCHEME = 'ui://';

/**
 * The flat `_meta` key older hosts read a tool's UI resource from. MCP Apps deprecates it for
 * `_meta.ui.resourceUri`; the extension's own server helper still sends both, and so do we.
 */
export const LEGACY_RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** Metadata key of `@McpApp()` on a class (a list: the decorator stacks). */
export const MCP_APP_METADATA = 'mcp:app';

/** True for a URI in the `ui://` scheme (the scheme is case-insensitive). */
export const isUiUri = (uri: unknown): uri is string => typeof uri === 'string' && /^ui:\/\//i.test(uri);
