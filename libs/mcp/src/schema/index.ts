export * from './schema.types.js';
export { compileOutputSchema, compileSchema, type CompileSchemaOptions } from './compile-schema.js';
export { isDtoClass, isZodSchema } from './schema-guards.js';
