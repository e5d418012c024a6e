import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { MCP_REQUIRED_SCOPES_METADATA } from './require-scopes.decorator.js';
import { isScopeToken } from './scopes.js';

const read = (target: unknown): unknown =>
  target !== undefined && target !== null ? Reflect.getMetadata(MCP_REQUIRED_SCOPES_METADATA, target) : undefined;

/**
 * The scopes `@RequireScopes()` asks for on a method and its class, together (each scope once);
 * `undefined` when neither has any. A scope that is not a scope token fails startup naming where.
 */
export function requiredScopesOf(classRef: unknown, method: unknown, source: string): readonly string[] | undefined {
  const declared = [read(classRef), read(method)].flatMap((value) => (Array.isArray(value) ? value : []));
  return checkedScopes(declared, source);
}

/** Validates scopes given at runtime or by decorators; `undefined` for none. */
export function checkedScopes(scopes: readonly unknown[] | undefined, source: string): readonly string[] | undefined {
  if (!scopes || scopes.length === 0) return undefined;
  for (const scope of scopes) {
    if (!isScopeToken(scope)) {
      throw new McpDefinitionError(
        `Invalid scope ${JSON.stringify(scope)} required on ${source}: scopes are non-empty strings without spaces`,
      );
    }
  }
  return Object.freeze([...new Set(scopes as string[])]);
}
