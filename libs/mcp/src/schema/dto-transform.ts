import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import type { SchemaValidationResult } from './schema.types.js';

/**
 * `value` as an instance of `dto`, or why it cannot be one. class-transformer throws on some
 * JSON it is given, an object with its own `constructor` property above all (it takes that
 * property for the class to build), and input that breaks the conversion is the client's
 * mistake, not the server's.
 */
export function toDtoInstance(
  dto: Type<unknown>,
  value: object,
): { ok: true; instance: object } | Extract<SchemaValidationResult, { ok: false }> {
  try {
    // exposeDefaultValues: a property given as `undefined` still gets its field initializer.
    return { ok: true, instance: plainToInstance(dto, value, { exposeDefaultValues: true }) as object };
  } catch {
    const at = constructorKeyPath(value);
    const what = at ? `${at}: an object with a 'constructor' property` : 'the arguments';
    return { ok: false, errors: [`${what} cannot be converted to ${dto.name}`] };
  }
}

/** Where the first nested object with an own `constructor` property is (class-transformer skips the root's). */
function constructorKeyPath(root: object): string | undefined {
  const pending: [node: object, path: string][] = Object.entries(root)
    .filter((entry): entry is [string, object] => typeof entry[1] === 'object' && entry[1] !== null)
    .map(([name, child]) => [child, name]);
  // Breadth first (the shallowest culprit), without shift(): arguments may hold large arrays.
  for (let next = 0; next < pending.length; next++) {
    const [node, path] = pending[next];
    if (!Array.isArray(node) && Object.hasOwn(node, 'constructor')) return `${path}.constructor`;
    for (const [name, child] of Object.entries(node)) {
      if (typeof child === 'object' && child !== null) pending.push([child as object, `${path}.${name}`]);
    }
  }
  return undefined;
}
