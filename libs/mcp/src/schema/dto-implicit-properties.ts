import { getMetadataStorage, ValidationTypes, type ValidationError } from 'class-validator';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import type { JsonSchemaObject } from './schema.types.js';
import { isPlainObject, type DtoClass } from './schema-guards.js';

/** The JSON types an implicit property can be checked against. */
type ImplicitType = 'string' | 'number' | 'boolean' | 'array' | 'object';

/**
 * A DTO property that no class-validator decorator mentions but that has a field initializer
 * (`days = 3`): optional, and checked against the type of its declaration or of its default.
 */
export interface ImplicitProperty {
  /** Its JSON type; none when neither the declaration nor the default tells. */
  readonly type?: ImplicitType;
  /** Whether `null` passes too (the default is `null`). */
  readonly nullable: boolean;
}

/** The implicit properties of each DTO class, by their names on an instance. */
export type ImplicitProperties = ReadonlyMap<DtoClass, ReadonlyMap<string, ImplicitProperty>>;

const DESIGN_TYPES = new Map<unknown, ImplicitType>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [Array, 'array'],
]);

const MESSAGES: Record<ImplicitType, string> = {
  string: 'must be a string',
  number: 'must be a number',
  boolean: 'must be a boolean value',
  array: 'must be an array',
  object: 'must be an object',
};

function typeOfValue(value: unknown): ImplicitType | undefined {
  if (Array.isArray(value)) return 'array';
  if (isPlainObject(value)) return 'object';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : undefined;
}

/** The message for a value that does not have the property's type, if it does not. */
function typeError(name: string, value: unknown, { type, nullable }: ImplicitProperty): string | undefined {
  if (type === undefined || typeOfValue(value) === type || (value === null && nullable)) return undefined;
  return `${name} ${MESSAGES[type]}`;
}

/**
 * The properties of `sample` (a fresh instance of `cls`) that have a value but no class-validator
 * metadata. `design:type` wins over the default's type: TypeScript emits it when any decorator
 * (`@Expose`, `@Type`...) sits on the property, and it says what the author declared.
 */
export function implicitProperties(cls: DtoClass, sample: object): Map<string, ImplicitProperty> {
  const validated = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((meta) => meta.propertyName),
  );
  const implicit = new Map<string, ImplicitProperty>();
  for (const [name, value] of Object.entries(sample)) {
    if (value === undefined || validated.has(name)) continue;
    const declared: unknown = Reflect.getMetadata('design:type', cls.prototype as object, name);
    implicit.set(name, { type: DESIGN_TYPES.get(declared) ?? typeOfValue(value), nullable: value === null });
  }
  return implicit;
}

/** Whether clients see the property at all (`@Exclude()` keeps it server-side). */
export function isListed(cls: DtoClass, name: string): boolean {
  return defaultMetadataStorage.findExcludeMetadata(cls, name) === undefined;
}

/** The JSON Schema of an implicit property, without its default. */
export function implicitPropertySchema({ type, nullable }: ImplicitProperty): JsonSchemaObject {
  if (type === undefined) return {};
  return { type: nullable ? [type, 'null'] : type };
}

/**
 * class-validator's whitelist knows only decorated properties, so it reports every implicit one
 * as "should not exist". This drops those reports when the value has the property's type and
 * turns them into a type error otherwise; every other error stays as it was.
 */
export function acceptImplicitProperties(
  errors: readonly ValidationError[],
  implicit: ImplicitProperties,
): ValidationError[] {
  const kept: ValidationError[] = [];
  for (const error of errors) {
    const property = implicitOf(error, implicit);
    if (property) {
      const message = typeError(error.property, error.value, property);
      if (message) kept.push(Object.assign(error, { constraints: { implicitType: message } }));
      continue;
    }
    if (error.children?.length) error.children = acceptImplicitProperties(error.children, implicit);
    if (Object.keys(error.constraints ?? {}).length > 0 || error.children?.length) kept.push(error);
  }
  return kept;
}

function implicitOf(error: ValidationError, implicit: ImplicitProperties): ImplicitProperty | undefined {
  const constraints = Object.keys(error.constraints ?? {});
  if (constraints.length !== 1 || constraints[0] !== ValidationTypes.WHITELIST) return undefined;
  return error.target ? implicit.get(error.target.constructor as DtoClass)?.get(error.property) : undefined;
}
