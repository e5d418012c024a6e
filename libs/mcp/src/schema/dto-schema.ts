import type { Type } from '@nestjs/common';
import { validate, type ValidatorOptions } from 'class-validator';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { INVALID_SCHEMA } from '../mcp.messages.js';
import type { CompiledSchema, SchemaValidationResult } from './schema.types.js';
import { formatValidationErrors, reportedPaths } from './dto-errors.js';
import { dtoToJsonSchema, type DtoJsonSchema } from './dto-json-schema.js';
import { missingRequired } from './dto-required.js';
import { acceptImplicitProperties } from './dto-implicit-properties.js';
import { isObjectValue } from './schema-guards.js';
import { toDtoInstance } from './dto-transform.js';

/**
 * `whitelist` + `forbidNonWhitelisted`: the schema a client sees says `additionalProperties:
 * false`, so an unknown property is rejected with a message rather than silently stripped (a
 * typo in an optional argument should not go unnoticed). `forbidUnknownValues` is off so a DTO
 * with no validated property still accepts `{}`. Errors keep their target and value: the
 * properties known only from an initializer are told apart and type-checked through them.
 */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: false,
  validationError: { target: true, value: true },
};

async function validateDto(
  dto: Type<unknown>,
  { requiredProperties, implicitProperties }: DtoJsonSchema,
  value: unknown,
): Promise<SchemaValidationResult> {
  if (!isObjectValue(value)) return { ok: false, errors: ['must be an object'] };
  const converted = toDtoInstance(dto, value);
  if (!converted.ok) return converted;
  const { instance } = converted;
  const validationErrors = acceptImplicitProperties(await validate(instance, VALIDATOR_OPTIONS), implicitProperties);
  const errors = [
    ...formatValidationErrors(validationErrors),
    ...missingRequired(instance, requiredProperties, reportedPaths(validationErrors)),
  ];
  return errors.length === 0 ? { ok: true, value: instance } : { ok: false, errors };
}

/**
 * Compiles a class-validator DTO class: its JSON Schema is generated once, and `validate` turns
 * a value into a DTO instance (`plainToInstance`) and checks it with class-validator.
 * @throws McpDefinitionError when no JSON Schema can be generated from the class.
 */
export function compileDtoSchema(dto: Type<unknown>, where: string): CompiledSchema {
  let generated: DtoJsonSchema;
  try {
    generated = dtoToJsonSchema(dto);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new McpDefinitionError(
      INVALID_SCHEMA(where, `cannot generate a JSON Schema from the class ${dto.name}: ${reason}`),
    );
  }
  return { jsonSchema: generated.jsonSchema, validate: (value) => validateDto(dto, generated, value) };
}
