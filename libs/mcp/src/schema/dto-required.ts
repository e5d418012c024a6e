import type { DtoClass } from './schema-guards.js';

/**
 * Messages for required properties that are `undefined` on a validated DTO instance (or on the
 * DTOs nested in it) and that class-validator did not report: it skips `undefined` for
 * `@ValidateNested()` and `@Allow()`, so a missing nested object would otherwise pass although
 * the schema requires it.
 * @param requiredProperties The required properties of each DTO class.
 * @param reported The paths class-validator already reported.
 */
export function missingRequired(
  value: unknown,
  requiredProperties: ReadonlyMap<DtoClass, readonly string[]>,
  reported: ReadonlySet<string>,
  path = '',
): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const messages: string[] = [];
  const record = value as Record<string, unknown>;
  for (const name of requiredProperties.get(value.constructor as DtoClass) ?? []) {
    const at = join(path, name);
    if (record[name] === undefined && !reported.has(at)) messages.push(`${at} is required`);
  }
  for (const [name, child] of Object.entries(record)) {
    messages.push(...missingRequired(child, requiredProperties, reported, join(path, name)));
  }
  return messages;
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}
