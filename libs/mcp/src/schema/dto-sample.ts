import type { DtoClass } from './schema-guards.js';

/**
 * One instance of `cls`, built the way class-transformer builds every DTO it fills
 * (`new cls()`, no arguments). Field initializers only exist on an instance, so this is how the
 * schema learns the defaults and the properties that no decorator mentions.
 * @throws Error naming the class when its constructor needs arguments (every call would fail).
 */
export function sampleInstance(cls: DtoClass): Record<string, unknown> {
  try {
    return new (cls as new () => Record<string, unknown>)();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `new ${cls.name}() threw (${reason}): class-transformer builds DTOs without arguments, so the constructor must accept none`,
    );
  }
}
