import type { JsonSchemaObject } from './schema.types.js';
import { mapSchema } from './json-schema-walk.js';

/** Keywords that describe a value rather than constrain it; they stay outside an `anyOf` wrapper. */
const ANNOTATIONS = ['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly'];

/** OpenAPI keywords with no JSON Schema meaning. */
const OPENAPI_ONLY = ['discriminator', 'xml', 'externalDocs'];

/**
 * Returns `schema` widened to also accept `null`: `type: ['string', 'null']` when it has a type
 * (and `null` added to its `enum`), else `anyOf: [schema, { type: 'null' }]` (for `$ref` and
 * combinators, whose siblings draft-07 validators would ignore or misread).
 */
export function allowNull(schema: JsonSchemaObject): JsonSchemaObject {
  const { type } = schema;
  if (typeof type === 'string' || Array.isArray(type)) {
    const types: unknown[] = Array.isArray(type) ? type : [type];
    const widened: JsonSchemaObject = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) widened.enum = [...schema.enum, null];
    return widened;
  }
  if (Object.keys(schema).length === 0) return schema;
  if (Array.isArray(schema.enum) && !('$ref' in schema)) {
    return schema.enum.includes(null) ? schema : { ...schema, enum: [...schema.enum, null] };
  }
  const outer: JsonSchemaObject = {};
  const inner: JsonSchemaObject = {};
  for (const [key, value] of Object.entries(schema)) (ANNOTATIONS.includes(key) ? outer : inner)[key] = value;
  if (Object.keys(inner).length === 1 && Array.isArray(inner.anyOf)) {
    return { ...outer, anyOf: [...(inner.anyOf as unknown[]), { type: 'null' }] };
  }
  return { ...outer, anyOf: [inner, { type: 'null' }] };
}

/**
 * Rewrites the OpenAPI 3.0 dialect that class-validator-jsonschema emits into plain JSON Schema:
 * `nullable: true` becomes a `null` type, `example` becomes `examples`, and the OpenAPI-only
 * `discriminator`, `xml` and `externalDocs` are dropped.
 */
export function openApiToJsonSchema(schema: JsonSchemaObject): JsonSchemaObject {
  return mapSchema(schema, (node) => {
    const { nullable, example, ...rest } = node;
    for (const keyword of OPENAPI_ONLY) delete rest[keyword];
    if (example !== undefined && rest.examples === undefined) rest.examples = [example];
    return nullable === true ? allowNull(rest) : rest;
  });
}
