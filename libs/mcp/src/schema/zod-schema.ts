import type { core } from 'zod';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { INVALID_SCHEMA } from '../mcp.messages.js';
import type { CompiledSchema, JsonSchemaObject, SchemaValidationResult } from './schema.types.js';

type ZodModule = typeof import('zod');

let zodModule: Promise<ZodModule> | undefined;

/** zod is an optional peer dependency: it is loaded only once a zod schema shows up. */
function loadZod(): Promise<ZodModule> {
  zodModule ??= import('zod');
  return zodModule;
}

function formatIssue(issue: core.$ZodIssue): string {
  return issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}

/**
 * Compiles a zod 4 schema: its JSON Schema comes from `z.toJSONSchema` (2020-12, without
 * `$schema`) for the `input` side (what a client sends: defaults optional, coerced types as
 * accepted) or the `output` side (what a handler's result becomes once parsed), and `validate`
 * returns zod's parsed output (defaults and transforms applied).
 * @throws McpDefinitionError when zod cannot be loaded, when the schema has no JSON Schema
 * equivalent, or when its root is not an object.
 */
export async function compileZodSchema(
  schema: { readonly _zod: unknown },
  where: string,
  io: 'input' | 'output' = 'input',
): Promise<CompiledSchema> {
  let z: ZodModule;
  try {
    z = await loadZod();
  } catch {
    throw new McpDefinitionError(
      INVALID_SCHEMA(where, "a zod schema needs the 'zod' package (version 4), which cannot be loaded"),
    );
  }
  const zodSchema = schema as core.$ZodType;
  let generated: JsonSchemaObject;
  try {
    generated = JSON.parse(
      JSON.stringify(z.toJSONSchema(zodSchema, { target: 'draft-2020-12', io })),
    ) as JsonSchemaObject;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new McpDefinitionError(INVALID_SCHEMA(where, `the zod schema has no JSON Schema equivalent: ${reason}`));
  }
  // Without $schema, MCP reads 2020-12; older clients fail on the 2020-12 meta-schema URI.
  const jsonSchema = { ...generated };
  delete jsonSchema.$schema;
  if (jsonSchema.type !== 'object') {
    throw new McpDefinitionError(INVALID_SCHEMA(where, 'the root of a zod schema must be an object (z.object)'));
  }
  return {
    jsonSchema,
    validate: async (value): Promise<SchemaValidationResult> => {
      const result = await z.safeParseAsync(zodSchema, value);
      return result.success
        ? { ok: true, value: result.data }
        : { ok: false, errors: result.error.issues.map(formatIssue) };
    },
  };
}
