import type { JsonSchemaObject } from './schema.types.js';
import type { DtoClass } from './schema-guards.js';
import { CLASS_REF_PREFIX, dtoConverters } from './dto-converters.js';
import { dtoClassSchema } from './dto-class-schema.js';
import { mapSchema } from './json-schema-walk.js';
import type { ImplicitProperties, ImplicitProperty } from './dto-implicit-properties.js';

/** Every class reachable from `root`, with its own schema and the classes it nests. */
function collectClasses(root: DtoClass) {
  const classes: DtoClass[] = [];
  const ids = new Map<DtoClass, number>();
  const classRef = (cls: DtoClass): string => {
    if (!ids.has(cls)) {
      ids.set(cls, classes.length);
      classes.push(cls);
    }
    return `${CLASS_REF_PREFIX}${ids.get(cls)}`;
  };
  classRef(root);
  const schemas = new Map<DtoClass, JsonSchemaObject>();
  const nests = new Map<DtoClass, Set<DtoClass>>();
  const requiredProperties = new Map<DtoClass, readonly string[]>();
  const implicitProperties = new Map<DtoClass, ReadonlyMap<string, ImplicitProperty>>();
  // `classes` grows while we walk it: each schema registers the classes it nests.
  for (let i = 0; i < classes.length; i++) {
    const cls = classes[i];
    const nested = new Set<DtoClass>();
    const converters = dtoConverters((target) => {
      nested.add(target);
      return classRef(target);
    });
    const { schema, required, implicit } = dtoClassSchema(cls, converters);
    schemas.set(cls, schema);
    requiredProperties.set(cls, required);
    implicitProperties.set(cls, implicit);
    nests.set(cls, nested);
  }
  return { classes, schemas, nests, requiredProperties, implicitProperties };
}

/** The classes that can reach themselves through their nested classes. */
function recursiveClasses(classes: DtoClass[], nests: Map<DtoClass, Set<DtoClass>>): Set<DtoClass> {
  const recursive = new Set<DtoClass>();
  for (const start of classes) {
    const seen = new Set<DtoClass>();
    const pending = [...nests.get(start)!];
    while (pending.length > 0) {
      const cls = pending.pop()!;
      if (cls === start) {
        recursive.add(start);
        break;
      }
      if (seen.has(cls)) continue;
      seen.add(cls);
      pending.push(...nests.get(cls)!);
    }
  }
  return recursive;
}

function uniqueDefNames(classes: Iterable<DtoClass>): Map<DtoClass, string> {
  const names = new Map<DtoClass, string>();
  const taken = new Set<string>();
  for (const cls of classes) {
    const base = cls.name || 'Dto';
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    names.set(cls, name);
  }
  return names;
}

export interface DtoJsonSchema {
  /** The self-contained JSON Schema of the DTO. */
  readonly jsonSchema: JsonSchemaObject;
  /** The required properties (instance names) of the DTO and of each class it nests. */
  readonly requiredProperties: ReadonlyMap<DtoClass, readonly string[]>;
  /** The undecorated properties with an initializer of the DTO and of each class it nests. */
  readonly implicitProperties: ImplicitProperties;
}

/**
 * The self-contained JSON Schema (2020-12, without `$schema`) of a class-validator DTO: nested
 * DTOs are inlined, and only recursive ones go to `$defs` (the root itself is `#`).
 */
export function dtoToJsonSchema(root: DtoClass): DtoJsonSchema {
  const { classes, schemas, nests, requiredProperties, implicitProperties } = collectClasses(root);
  const recursive = recursiveClasses(classes, nests);
  const defNames = uniqueDefNames(classes.filter((cls) => cls !== root && recursive.has(cls)));

  const build = (cls: DtoClass): JsonSchemaObject =>
    mapSchema(schemas.get(cls)!, (node) => {
      const { $ref, ...siblings } = node;
      if (typeof $ref !== 'string' || !$ref.startsWith(CLASS_REF_PREFIX)) return node;
      const target = classes[Number($ref.slice(CLASS_REF_PREFIX.length))];
      const replacement =
        target === root && recursive.has(root)
          ? { $ref: '#' }
          : defNames.has(target)
            ? { $ref: `#/$defs/${defNames.get(target)}` }
            : build(target);
      return { ...replacement, ...siblings };
    });

  const jsonSchema = build(root);
  if (defNames.size > 0) {
    jsonSchema.$defs = Object.fromEntries([...defNames].map(([cls, name]) => [name, build(cls)]));
  }
  return { jsonSchema, requiredProperties, implicitProperties };
}
