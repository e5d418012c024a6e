import type { Type } from '@nestjs/common';
import type { JsonSchemaObject } from './schema.types.js';

/** Any class, as class-validator and class-transformer metadata refer to them. */
export type DtoClass = abstract new (...args: any[]) => unknown;

/** Whether `value` is a zod 4 schema (classic or mini): every zod 4 schema keeps its internals on `_zod`. */
export function isZodSchema(value: unknown): value is { readonly _zod: unknown } {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** Whether `value` is a class, taken to be a class-validator DTO. Arrow functions have no prototype. */
export function isDtoClass(value: unknown): value is Type<unknown> {
  return typeof value === 'function' && typeof value.prototype === 'object' && value.prototype !== null;
}

/** Whether `value` is a plain object (an object literal, JSON data or `Object.create(null)`). */
export function isPlainObject(value: unknown): value is JsonSchemaObject {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is an object that can carry named properties (not `null`, not an array). */
export function isObjectValue(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
