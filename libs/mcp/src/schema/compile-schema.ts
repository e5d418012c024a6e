import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { INVALID_SCHEMA } from '../mcp.messages.js';
import type { CompiledSchema, McpSchemaInput } from './schema.types.js';
import { compileDtoSchema } from './dto-schema.js';
import { compileEmptySchema } from './empty-schema.js';
import { compileJsonSchema } from './json-schema.js';
import { isDtoClass, isPlainObject, isZodSchema } from './schema-guards.js';
import { compileZodSchema } from './zod-schema.js';
import { withArgumentDepthLimit } from './argument-depth.js';
import { DEFAULT_MAX_ARGUMENT_DEPTH } from '../mcp.constants.js';

/** How a tool's input is checked besides its schema. */
export interface CompileSchemaOptions {
  /**
   * Deepest nesting of objects and arrays accepted in arguments (the arguments object is level 1),
   * checked before anything else looks at them.
   * @default 64
   */
  maxDepth?: number;
}

async function compile(
  input: McpSchemaInput | undefined,
  where: string,
  io: 'input' | 'output',
): Promise<CompiledSchema> {
  if (input === undefined) return compileEmptySchema();
  if (isZodSchema(input)) return compileZodSchema(input, where, io);
  if (isDtoClass(input)) return compileDtoSchema(input, where);
  if (typeof input === 'object' && input !== null && '_def' in input) {
    throw new McpDefinitionError(INVALID_SCHEMA(where, 'zod 3 schemas are not supported: use zod 4'));
  }
  if (isPlainObject(input)) return compileJsonSchema(input, where);
  throw new McpDefinitionError(
    INVALID_SCHEMA(where, 'expected a class-validator DTO class, a zod 4 schema or a JSON Schema object'),
  );
}

/**
 * Compiles a tool's input model once, at startup: its JSON Schema for `tools/list` and its
 * validator, which refuses arguments nested deeper than `maxDepth` before the model sees them.
 * `undefined` means no arguments (an empty object; the caller passes `{}` when a request has no
 * `arguments`).
 * @param where The tool's `Class.method`, for error messages.
 * @throws McpDefinitionError when the model is not a usable schema.
 */
export async function compileSchema(
  input: McpSchemaInput | undefined,
  where: string,
  { maxDepth = DEFAULT_MAX_ARGUMENT_DEPTH }: CompileSchemaOptions = {},
): Promise<CompiledSchema> {
  return withArgumentDepthLimit(await compile(input, where, 'input'), maxDepth);
}

/**
 * Like {@link compileSchema}, for a tool's output model: a zod schema is described by its output
 * side (a `.default()` field is always present in a parsed result, and is required there).
 * DTOs and JSON Schemas compile the same way as inputs.
 */
export function compileOutputSchema(input: McpSchemaInput | undefined, where: string): Promise<CompiledSchema> {
  return compile(input, where, 'output');
}
