import type { Type } from '@nestjs/common';

/** A JSON Schema document (2020-12 unless it says otherwise through `$schema`). */
export type JsonSchemaObject = Record<string, unknown>;

/**
 * Anything a tool may use to describe its input or output:
 * - a class-validator DTO class (`class CreateNoteDto { @IsString() title!: string }`),
 * - a zod 4 schema (`z.object({ title: z.string() })`),
 * - a raw JSON Schema object with root `type: "object"`.
 * @publicApi
 */
export type McpSchemaInput = Type<unknown> | JsonSchemaObject | { readonly _zod: unknown };

export type SchemaValidationResult = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** A schema ready to serve: its wire form and its validator, built once at startup. */
export interface CompiledSchema {
  /** The JSON Schema sent in `tools/list` (root `type: "object"`). */
  readonly jsonSchema: JsonSchemaObject;
  /**
   * Validates (and, for DTOs and zod, transforms) a value.
   * `value` is what the handler receives: a DTO instance, zod's parsed output, or the input as is.
   */
  validate(value: unknown): Promise<SchemaValidationResult> | SchemaValidationResult;
}
