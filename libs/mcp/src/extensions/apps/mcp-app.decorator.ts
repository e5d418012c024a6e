import { MCP_APP_METADATA } from './mcp-apps.constants.js';
import type { McpAppOptions } from '../../interfaces/mcp-app-options.interface.js';

/**
 * Declares an MCP App on a provider class: a UI resource under `ui://` whose HTML hosts render
 * in a sandboxed iframe, with its `_meta.ui` (CSP, permissions, domain, border). Link tools to it
 * with `@McpTool({ ui: { resourceUri } })`. Stack it to declare several. The resource is listed
 * and read like any other (`@RequireScopes()` on the class applies to it); for a read handler
 * with guards and per-request DI, put `@McpResource({ uri: 'ui://...', ui })` on a method that
 * returns the HTML instead. Invalid declarations fail `app.init()`. See docs/apps.md.
 *
 * @example
 * ```ts
 * @McpApp({
 *   uri: 'ui://notes/board',
 *   name: 'Notes board',
 *   html: { file: new URL('../../dist-apps/notes-board.html', import.meta.url) },
 *   ui: { prefersBorder: true },
 * })
 * @Injectable()
 * export class NotesBoardApp {}
 * ```
 * @publicApi
 */
export const McpApp =
  (options: McpAppOptions): ClassDecorator =>
  (target) => {
    const declared = (Reflect.getOwnMetadata(MCP_APP_METADATA, target) as McpAppOptions[] | undefined) ?? [];
    // Decorators apply bottom-up: prepend, so the list reads in source order.
    Reflect.defineMetadata(MCP_APP_METADATA, [options, ...declared], target);
  };

/** The `@McpApp()` declarations of a class, in source order (none for anything else). */
export function appsDeclaredOn(target: unknown): readonly McpAppOptions[] {
  if (typeof target !== 'function') return [];
  // Own metadata only: a subclass does not declare its parent's apps a second time.
  return (Reflect.getOwnMetadata(MCP_APP_METADATA, target) as McpAppOptions[] | undefined) ?? [];
}
