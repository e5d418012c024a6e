import 'reflect-metadata';
import { IS_DATE, IS_ENUM, IS_IN, IS_ISO8601, MAX_DATE, MIN_DATE, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters.js';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import type { JsonSchemaObject } from './schema.types.js';
import type { DtoClass } from './schema-guards.js';

/** Prefix of the placeholder `$ref` that stands for a nested DTO class until it is inlined. */
export const CLASS_REF_PREFIX = 'mcp-dto-class:';

/** Types that `design:type` reports for non-class values; they are never nested DTOs. */
const BUILT_INS = new Set<unknown>([
  String,
  Number,
  Boolean,
  Array,
  Object,
  Date,
  Map,
  Set,
  Function,
  Symbol,
  BigInt,
  Promise,
]);

function anyDate(): JsonSchemaObject {
  return {
    anyOf: [
      { type: 'string', format: 'date' },
      { type: 'string', format: 'date-time' },
    ],
  };
}

type ClassRefs = (cls: DtoClass) => string;

function designType(meta: ValidationMetadata): unknown {
  return typeof meta.target === 'function'
    ? Reflect.getMetadata('design:type', meta.target.prototype as object, meta.propertyName)
    : undefined;
}

function primitiveSchema(type: unknown): JsonSchemaObject | undefined {
  if (type === String) return { type: 'string' };
  if (type === Number) return { type: 'number' };
  if (type === Boolean) return { type: 'boolean' };
  return undefined;
}

/** `enum` with a `type` when every value has the same JSON type. */
function enumSchema(values: readonly unknown[]): JsonSchemaObject {
  const types = new Set(values.map((value) => (value === null ? 'null' : typeof value)));
  const [only] = types;
  return types.size === 1 && (only === 'string' || only === 'number' || only === 'boolean')
    ? { type: only, enum: [...values] }
    : { enum: [...values] };
}

/** The values of a TypeScript enum, without the reverse mappings of its numeric members. */
function enumValues(entity: Record<string, unknown>): unknown[] {
  return Object.entries(entity)
    .filter(([key, value]) => !(typeof value === 'string' && entity[value] === Number(key)))
    .map(([, value]) => value);
}

/** A date schema described by its fixed bound (a bound given as a function changes over time). */
function dateBound(word: string, bound: unknown): JsonSchemaObject {
  return bound instanceof Date ? { ...anyDate(), description: `${word} ${bound.toJSON()}` } : anyDate();
}

/**
 * Converters that replace class-validator-jsonschema defaults which would leave an invalid or
 * misleading schema: nested classes become placeholder refs (resolved and inlined later, instead
 * of `#/definitions/Name`, which does not exist in a tool schema and collides on equal names);
 * custom validators no longer emit `$ref: '#/definitions/Array'`; numeric enums lose their
 * reverse-mapped names; `@IsIn` of mixed types keeps its `enum`; dates use `anyOf` because both
 * date formats match a date-time when formats are not asserted, which fails `oneOf`.
 */
export function dtoConverters(classRef: ClassRefs): ISchemaConverters {
  return {
    [ValidationTypes.NESTED_VALIDATION]: (meta) => {
      if (typeof meta.target !== 'function') return {};
      const typeMeta = defaultMetadataStorage.findTypeMetadata(meta.target, meta.propertyName);
      const declared = designType(meta);
      const nested: unknown = typeMeta ? typeMeta.typeFunction() : declared;
      const isClass = typeof nested === 'function' && !BUILT_INS.has(nested);
      const schema = primitiveSchema(nested) ?? (isClass ? { $ref: classRef(nested as DtoClass) } : {});
      // Without `each`, @ValidateNested still validates every element of an array value.
      return declared === Array && !meta.each ? { type: 'array', items: schema } : schema;
    },
    [ValidationTypes.CUSTOM_VALIDATION]: (meta) => {
      if (meta.each) return {};
      const type = designType(meta);
      return primitiveSchema(type) ?? (type === Array ? { type: 'array' } : {});
    },
    [IS_ENUM]: (meta) => enumSchema(enumValues(meta.constraints[0] as Record<string, unknown>)),
    [IS_IN]: (meta) => enumSchema(meta.constraints[0] as unknown[]),
    [IS_DATE]: anyDate,
    [IS_ISO8601]: anyDate,
    [MIN_DATE]: (meta) => dateBound('After', meta.constraints[0]),
    [MAX_DATE]: (meta) => dateBound('Before', meta.constraints[0]),
  };
}
