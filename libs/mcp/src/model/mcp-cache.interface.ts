/** Who may store a cached result (MCP 2026-07-28 caching): anyone, or the same caller only. @publicApi */
export type McpCacheScope = 'public' | 'private';

/**
 * Caching hints of the modern era (`ttlMs`, `cacheScope` on `server/discover`, the lists and
 * `resources/read`). Set module defaults with `McpModule.forRoot({ cacheHints })` and override
 * them per tool, prompt, resource or template on its decorator.
 * @publicApi
 */
export interface McpCacheHints {
  /** How long, in milliseconds, a client may consider the result fresh (`0`: re-fetch each time). */
  ttlMs?: number;
  /** `'private'` when the result depends on who asks. */
  scope?: McpCacheScope;
}
