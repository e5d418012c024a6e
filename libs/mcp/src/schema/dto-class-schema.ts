import { getMetadataStorage } from 'class-validator';
import type { DtoClass } from './schema-guards.js';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters.js';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import type { JsonSchemaObject } from './schema.types.js';
import { allowNull, openApiToJsonSchema } from './openapi-keywords.js';
import { isPlainObject } from './schema-guards.js';
import {
  implicitProperties,
  implicitPropertySchema,
  isListed,
  type ImplicitProperty,
} from './dto-implicit-properties.js';
import { sampleInstance } from './dto-sample.js';

/** The name class-validator gives to the metadata of `@IsOptional()` (`@ValidateIf` has none). */
const IS_OPTIONAL = 'isOptional';

/** The name a property has on the wire (`@Expose({ name })` renames it). */
function wireName(cls: DtoClass, property: string): string {
  return defaultMetadataStorage.findExposeMetadata(cls, property)?.options.name ?? property;
}

/** The name a wire property has on a DTO instance. */
function instanceName(cls: DtoClass, name: string): string {
  return defaultMetadataStorage.findExposeMetadataByCustomName(cls, name)?.propertyName ?? name;
}

function optionalProperties(cls: DtoClass): Set<string> {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return new Set(metadatas.filter((meta) => meta.name === IS_OPTIONAL).map((meta) => wireName(cls, meta.propertyName)));
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  return isPlainObject(value) && Object.values(value).every(isJsonValue);
}

/**
 * The field initializers of `sample` (a fresh instance of `cls`): each maps to its JSON value, or
 * to `undefined` when it cannot be written as JSON (it still makes the property optional).
 */
function defaultValues(cls: DtoClass, sample: object): Map<string, unknown> {
  const defaults = new Map<string, unknown>();
  for (const [property, value] of Object.entries(sample)) {
    if (value !== undefined)
      defaults.set(wireName(cls, property), isJsonValue(value) ? structuredClone(value) : undefined);
  }
  return defaults;
}

/** `{ default }` when the property has a JSON default, else nothing. */
function defaultOf(defaults: ReadonlyMap<string, unknown>, name: string): JsonSchemaObject {
  const value = defaults.get(name);
  return value === undefined ? {} : { default: value };
}

export interface DtoClassSchema {
  /** The class's JSON Schema, nested classes still placeholder refs. */
  readonly schema: JsonSchemaObject;
  /** Its required properties, by their names on an instance. */
  readonly required: readonly string[];
  /** Its properties known only from their initializer, by their names on an instance. */
  readonly implicit: ReadonlyMap<string, ImplicitProperty>;
}

/**
 * The JSON Schema of one DTO class, with nested classes left as the placeholder refs that
 * `converters` emit. A property is required unless it has `@IsOptional()` (which also lets it be
 * `null`, as class-validator skips null there) or a field initializer (which becomes `default`).
 * A property with an initializer and no class-validator decorator (`days = 3`) is listed too,
 * typed by its declaration or its default. `additionalProperties: false` matches the validator,
 * which rejects unknown properties.
 * @throws Error when the class cannot be instantiated without arguments.
 */
export function dtoClassSchema(cls: DtoClass, converters: ISchemaConverters): DtoClassSchema {
  const generated = targetConstructorToSchema(cls, {
    additionalConverters: converters,
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: '#/$defs/',
  }) as JsonSchemaObject;
  const sample = sampleInstance(cls);
  const optional = optionalProperties(cls);
  const defaults = defaultValues(cls, sample);
  const implicit = implicitProperties(cls, sample);
  const properties: JsonSchemaObject = {};
  for (const [name, generatedProperty] of Object.entries((generated.properties ?? {}) as JsonSchemaObject)) {
    let property = generatedProperty as JsonSchemaObject;
    if (optional.has(name)) property = allowNull(property);
    property = { ...property, ...defaultOf(defaults, name) };
    properties[name] = property;
  }
  for (const [name, declared] of implicit) {
    if (!isListed(cls, name)) continue;
    const wire = wireName(cls, name);
    properties[wire] = { ...implicitPropertySchema(declared), ...defaultOf(defaults, wire) };
  }
  const required = ((generated.required ?? []) as string[]).filter(
    (name) => !optional.has(name) && !defaults.has(name),
  );
  const schema: JsonSchemaObject = { type: 'object', ...generated, properties, additionalProperties: false };
  if (required.length > 0) schema.required = required;
  else delete schema.required;
  return {
    schema: openApiToJsonSchema(schema),
    required: required.map((name) => instanceName(cls, name)),
    implicit,
  };
}
