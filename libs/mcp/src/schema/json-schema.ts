import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { INVALID_SCHEMA } from '../mcp.messages.js';
import type { CompiledSchema, JsonSchemaObject } from './schema.types.js';

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/**
 * No format is asserted: Ajv ships none (they live in ajv-formats), and 2020-12 makes `format`
 * an annotation by default; without this Ajv would log a warning for every format it meets.
 */
const AJV_OPTIONS: Options = { allErrors: true, strict: false, validateFormats: false };

let ajv2020: Ajv2020 | undefined;
let ajvDraft07: Ajv | undefined;

/** One Ajv instance per dialect, shared by every schema (compiling a meta-schema is costly). */
function ajvFor(dialect: unknown): Ajv | Ajv2020 | undefined {
  if (dialect === undefined || (typeof dialect === 'string' && DRAFT_2020_12.test(dialect))) {
    return (ajv2020 ??= new Ajv2020(AJV_OPTIONS));
  }
  if (typeof dialect === 'string' && DRAFT_07.test(dialect)) return (ajvDraft07 ??= new Ajv(AJV_OPTIONS));
  return undefined;
}

function formatAjvError(error: ErrorObject): string {
  let message = error.message ?? `must pass the '${error.keyword}' keyword`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') message += `: '${String(params.additionalProperty)}'`;
  if (error.keyword === 'unevaluatedProperties') message += `: '${String(params.unevaluatedProperty)}'`;
  if (error.keyword === 'enum')
    message += `: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return error.instancePath ? `${error.instancePath} ${message}` : message;
}

/**
 * Compiles a raw JSON Schema (2020-12, or draft-07 when its `$schema` says so) with Ajv, once.
 * The wire schema is a copy of the given one, unchanged; `validate` returns the value as is.
 * @throws McpDefinitionError when the root is not `type: "object"`, the dialect is not supported
 * or Ajv rejects the schema.
 */
export function compileJsonSchema(schema: JsonSchemaObject, where: string): CompiledSchema {
  let jsonSchema: JsonSchemaObject;
  try {
    jsonSchema = structuredClone(schema);
  } catch {
    throw new McpDefinitionError(INVALID_SCHEMA(where, 'a JSON Schema must be plain JSON data'));
  }
  if (jsonSchema.type !== 'object') {
    throw new McpDefinitionError(INVALID_SCHEMA(where, `the root of a JSON Schema must have type "object"`));
  }
  const ajv = ajvFor(jsonSchema.$schema);
  if (!ajv) {
    throw new McpDefinitionError(
      INVALID_SCHEMA(where, `unsupported $schema '${String(jsonSchema.$schema)}': use JSON Schema 2020-12 or draft-07`),
    );
  }
  // Ajv refuses a second schema with the same $id, but two tools (or a tool's input and output)
  // may well share one; the validators already compiled keep working.
  if (typeof jsonSchema.$id === 'string') ajv.removeSchema(jsonSchema.$id);
  let validateFn: ValidateFunction;
  try {
    validateFn = ajv.compile(jsonSchema);
  } catch (error) {
    throw new McpDefinitionError(INVALID_SCHEMA(where, error instanceof Error ? error.message : String(error)));
  }
  return {
    jsonSchema,
    validate: (value) =>
      validateFn(value) ? { ok: true, value } : { ok: false, errors: (validateFn.errors ?? []).map(formatAjvError) },
  };
}
