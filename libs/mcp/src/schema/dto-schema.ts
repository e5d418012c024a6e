import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidatorOptions } from 'class-validator';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { INVALID_SCHEMA } from '../mcp.messages.js';
import type { CompiledSchema, SchemaValidationResult } from './schema.types.js';
import { formatValidationErrors, reportedPaths } from './dto-errors.js';
import { dtoToJsonSchema, type DtoJsonSchema } from './dto-json-schema.js';
import { missingRequired } from './dto-required.js';
import { isObjectValue } from './schema-guards.js';

/**
 * `whitelist` + `forbidNonWhitelisted`: the schema a client sees says `additionalProperties:
 * false`, so an unknown property is rejected with a message rather than silently stripped (a
 * typo in an optional argument should not go unnoticed). `forbidUnknownValues` is off so a DTO
 * with no validated property still accepts `{}`.
 */
const VALIDATOR_OPTIONS: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false };

async function validateDto(
  dto: Type<unknown>,
  requiredProperties: DtoJsonSchema['requiredProperties'],
  value: unknown,
): Promise<SchemaValidationResult> {
  if (!isObjectValue(value)) return { ok: false, errors: ['must be an object'] };
  // exposeDefaultValues: a property given as `undefined` still gets its field initializer.
  const instance = plainToInstance(dto, value, { exposeDefaultValues: true }) as object;
  const validationErrors = await validate(instance, VALIDATOR_OPTIONS);
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
  const { jsonSchema, requiredProperties } = generated;
  return { jsonSchema, validate: (value) => validateDto(dto, requiredProperties, value) };
}
