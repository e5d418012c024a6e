import type { CompiledSchema } from './schema.types.js';
import { isObjectValue } from './schema-guards.js';

/** The schema of a tool that declares no input: an object without properties. */
export function compileEmptySchema(): CompiledSchema {
  return {
    jsonSchema: { type: 'object', properties: {}, additionalProperties: false },
    validate: (value) => {
      if (!isObjectValue(value)) return { ok: false, errors: ['must be an object'] };
      const unknown = Object.keys(value);
      return unknown.length === 0
        ? { ok: true, value }
        : { ok: false, errors: unknown.map((name) => `property ${name} should not exist`) };
    },
  };
}
