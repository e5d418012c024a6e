import { Injectable } from '@nestjs/common';
import { CACHE_HINTS, type HintedResult } from '../model/cache-hints.js';
import type { McpPrincipal } from '../model/mcp-principal.js';
import { McpAuthenticator } from './mcp-authenticator.js';
import { permits } from './scopes.js';

/** An entry that may need scopes: a tool, prompt, resource or resource template. */
export interface McpScopedEntry {
  /** `@RequireScopes()` (or `requiredScopes` of a runtime registration). */
  readonly requiredScopes?: readonly string[];
}

/** The part of a request context the policy reads. */
interface Caller {
  readonly auth?: McpPrincipal;
}

/**
 * Authorization of capabilities: `@RequireScopes()` enforced where an entry is used (call, read,
 * get, completion, subscribe and listen), and lists filtered to what the caller may use. The
 * filter is a courtesy, not the control: every use is checked on its own.
 */
@Injectable()
export class McpAccessPolicy {
  constructor(private readonly authenticator: McpAuthenticator) {}

  /** Throws 403 `insufficient_scope` (with the step-up challenge) when the caller lacks the entry's scopes. */
  assert(entry: McpScopedEntry, caller: Caller): void {
    // Most entries need no scope: the caller's principal is not even read then.
    if (entry.requiredScopes === undefined) return;
    const refusal = this.authenticator.insufficientScope(entry.requiredScopes, caller.auth);
    if (refusal) throw refusal;
  }

  /** The filter of a list for the caller; `undefined` when it sees everything (no principal). */
  visibleTo(caller: Caller): ((entry: McpScopedEntry) => boolean) | undefined {
    const auth = caller.auth;
    return auth ? (entry) => permits(auth, entry.requiredScopes) : undefined;
  }

  /**
   * Marks a result as depending on who asked: modern-era caching hints say `cacheScope:
   * "private"` (MCP 2026-07-28: anything filtered by the caller's authorization is private), so
   * no shared cache hands one principal's list or contents to another.
   */
  privateFor<T extends Record<string, unknown>>(result: T, caller: Caller): T {
    if (!caller.auth) return result;
    const hinted = result as HintedResult;
    hinted[CACHE_HINTS] = { ...hinted[CACHE_HINTS], scope: 'private' };
    return result;
  }
}
