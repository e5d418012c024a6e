import type { JsonSchemaObject } from './schema.types.js';
import { isPlainObject } from './schema-guards.js';

const SUBSCHEMA_KEYWORDS = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];

/**
 * Rebuilds a JSON Schema bottom-up: `visit` receives a copy of every (sub)schema whose own
 * subschemas were already rebuilt, and returns its replacement. Only schema positions are
 * visited, so a property named `nullable` or an `enum` value is never mistaken for a keyword.
 */
export function mapSchema(
  schema: JsonSchemaObject,
  visit: (schema: JsonSchemaObject) => JsonSchemaObject,
): JsonSchemaObject {
  const copy: JsonSchemaObject = { ...schema };
  for (const keyword of SUBSCHEMA_KEYWORDS) {
    const sub = copy[keyword];
    if (isPlainObject(sub)) copy[keyword] = mapSchema(sub, visit);
  }
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    const list = copy[keyword];
    if (Array.isArray(list)) copy[keyword] = list.map((sub) => (isPlainObject(sub) ? mapSchema(sub, visit) : sub));
  }
  for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
    const map = copy[keyword];
    if (!isPlainObject(map)) continue;
    copy[keyword] = Object.fromEntries(
      Object.entries(map).map(([name, sub]) => [name, isPlainObject(sub) ? mapSchema(sub, visit) : sub]),
    );
  }
  return visit(copy);
}
