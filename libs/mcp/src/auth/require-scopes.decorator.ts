import { SetMetadata } from '@nestjs/common';

/** Metadata key of `@RequireScopes()` on a class or a method. */
export const MCP_REQUIRED_SCOPES_METADATA = 'mcp:required-scopes';

/**
 * The OAuth scopes a caller's access token needs to use a tool, resource, resource template or
 * prompt. On a class it applies to every MCP method of it; on a method it adds to the class's.
 *
 * Enforced when the entry is used (`tools/call`, `resources/read`, `prompts/get`, completion),
 * and for a resource when a client subscribes to or listens on its URI: subscribing needs the
 * same right as reading. A caller without the scopes gets 403 `insufficient_scope` with the
 * scopes to ask for; lists show it only what it may use. Without `auth` (or over stdio) it has no
 * effect.
 *
 * @example
 * ```ts
 * @RequireScopes('notes:read')
 * @Injectable()
 * export class NotesTools {
 *   @McpTool({ name: 'notes.create' })
 *   @RequireScopes('notes:write')
 *   create() {}
 * }
 * ```
 * @publicApi
 */
export const RequireScopes = (...scopes: string[]) => SetMetadata(MCP_REQUIRED_SCOPES_METADATA, scopes);
