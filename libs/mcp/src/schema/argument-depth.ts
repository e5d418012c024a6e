import type { CompiledSchema } from './schema.types.js';

/**
 * Why a value nests objects or arrays deeper than `maxDepth` levels (the arguments object itself
 * is level 1), naming the top-level argument that does; undefined when it does not. Iterative,
 * so the check itself cannot overflow the stack on the values it exists to refuse.
 */
export function argumentDepthError(value: unknown, maxDepth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // Arguments of scalars only (most calls) allocate nothing past the key list: this runs on
  // every tools/call.
  const args = value as Record<string, unknown>;
  let pending: [node: object, depth: number, argument: string][] | undefined;
  for (const name of Object.keys(args)) {
    const child = args[name];
    if (typeof child === 'object' && child !== null) (pending ??= []).push([child, 2, name]);
  }
  if (pending === undefined) return undefined;
  while (pending.length > 0) {
    const [node, depth, argument] = pending.pop()!;
    if (depth > maxDepth) return `${argument} is nested deeper than ${maxDepth} levels (the maxArgumentDepth limit)`;
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push([child as object, depth + 1, argument]);
    }
  }
  return undefined;
}

/**
 * `schema` with the depth limit checked first: class-transformer, zod and Ajv all recurse, and a
 * value nested a few thousand levels deep overflows the stack in them (an internal error instead
 * of an answer about the arguments).
 */
export function withArgumentDepthLimit(schema: CompiledSchema, maxDepth: number): CompiledSchema {
  return {
    jsonSchema: schema.jsonSchema,
    validate: (value) => {
      const error = argumentDepthError(value, maxDepth);
      return error === undefined ? schema.validate(value) : { ok: false, errors: [error] };
    },
  };
}
