export * from './schema.types.js';
export { compileOutputSchema, compileSchema } from './compile-schema.js';
export { isDtoClass, isZodSchema } from './schema-guards.js';
