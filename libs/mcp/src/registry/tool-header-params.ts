import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { JsonSchemaObject } from '../schema/schema.types.js';
import { isObject } from '../model/is-object.js';

/** A tool argument the client mirrors into an `Mcp-Param-<Name>` header (MCP 2026-07-28 `x-mcp-header`). */
export interface McpHeaderParam {
  /** The property path from the arguments object (`['target', 'region']`). */
  readonly path: readonly string[];
  /** The header name, lower case, as Node presents it (`mcp-param-region`). */
  readonly header: string;
  readonly type: 'string' | 'integer' | 'boolean';
}

const ANNOTATION = 'x-mcp-header';
/** RFC 9110 field-name token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * Applies a tool's `headerParams` option to its input schema (as `x-mcp-header` annotations)
 * and collects every annotation the schema then holds, checked against the specification's
 * rules: a token name, unique case-insensitively, on a string, integer or boolean property that
 * is reachable from the root through `properties` alone. A violation is a definition error.
 */
export function toolHeaderParams(
  inputSchema: JsonSchemaObject,
  declared: Record<string, string> | undefined,
  source: string,
): { schema: JsonSchemaObject; params: McpHeaderParam[] } {
  const schema = declared && Object.keys(declared).length > 0 ? annotate(inputSchema, declared, source) : inputSchema;
  const params: McpHeaderParam[] = [];
  collect(schema, [], params, source);
  const reachable = params.length;
  if (countAnnotations(schema) !== reachable) {
    throw new McpDefinitionError(
      `${source}: '${ANNOTATION}' may only annotate properties reachable through 'properties' from the root (not inside items, composition, conditionals or $ref)`,
    );
  }
  const seen = new Set<string>();
  for (const param of params) {
    if (seen.has(param.header))
      throw new McpDefinitionError(`${source}: '${ANNOTATION}' header ${param.header} is declared twice`);
    seen.add(param.header);
  }
  return { schema, params };
}

/** A copy of the schema with each declared path annotated. */
function annotate(schema: JsonSchemaObject, declared: Record<string, string>, source: string): JsonSchemaObject {
  const copy = structuredClone(schema) as Record<string, unknown>;
  for (const [path, name] of Object.entries(declared)) {
    let node: Record<string, unknown> = copy;
    for (const key of path.split('.')) {
      const next = isObject(node.properties) ? node.properties[key] : undefined;
      if (!isObject(next))
        throw new McpDefinitionError(`${source}: headerParams names '${path}', which is not a property of the input`);
      node = next;
    }
    node[ANNOTATION] = name;
  }
  return copy;
}

function collect(node: unknown, path: string[], out: McpHeaderParam[], source: string): void {
  if (!isObject(node) || !isObject(node.properties)) return;
  for (const [key, child] of Object.entries(node.properties)) {
    if (!isObject(child)) continue;
    const name = child[ANNOTATION];
    if (name !== undefined) out.push(headerParam([...path, key], name, child.type, source));
    collect(child, [...path, key], out, source);
  }
}

function headerParam(path: string[], name: unknown, type: unknown, source: string): McpHeaderParam {
  const where = `${source}: '${ANNOTATION}' on '${path.join('.')}'`;
  if (typeof name !== 'string' || !TOKEN.test(name))
    throw new McpDefinitionError(`${where} must be an HTTP header token`);
  if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
    throw new McpDefinitionError(`${where} must annotate a string, integer or boolean property`);
  }
  return { path, header: `mcp-param-${name.toLowerCase()}`, type: type as McpHeaderParam['type'] };
}

function countAnnotations(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, item) => sum + countAnnotations(item), 0);
  if (!isObject(node)) return 0;
  let count = Object.hasOwn(node, ANNOTATION) ? 1 : 0;
  for (const value of Object.values(node)) count += countAnnotations(value);
  return count;
}
