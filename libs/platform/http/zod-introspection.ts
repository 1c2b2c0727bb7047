import { z } from 'zod';

/** A zod issue path segment as the HTTP layer reports it (symbols cannot travel in JSON). */
export type LocSegment = string | number;

export function toLocSegment(key: PropertyKey): LocSegment {
  if (typeof key === 'symbol') return key.description ?? key.toString();
  return key;
}

/** What sits at `path` inside `input`, and whether the last key was present at all. */
export interface ValueLookup {
  readonly present: boolean;
  readonly value: unknown;
}

/**
 * zod v4 does not copy the offending input into issues by default, yet pydantic's
 * messages depend on it ("missing" vs "wrong type", list lengths, "unable to parse
 * string"), so we read it back from the raw request part.
 */
export function valueAt(input: unknown, path: readonly PropertyKey[]): ValueLookup {
  let current: unknown = input;
  for (const key of path) {
    if (current instanceof Map) {
      if (!current.has(key)) return { present: false, value: undefined };
      current = current.get(key);
      continue;
    }
    if (current === null || typeof current !== 'object') return { present: false, value: undefined };
    if (!Object.prototype.hasOwnProperty.call(current, key)) return { present: false, value: undefined };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { present: current !== undefined, value: current };
}

type AnySchema = z.core.$ZodType;

/** Schemas that only wrap another one without changing where values live. */
function innerSchemas(schema: AnySchema): AnySchema[] {
  const def = schema._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return [(schema as z.core.$ZodOptional)._zod.def.innerType];
    case 'pipe': {
      const pipeDef = (schema as z.core.$ZodPipe)._zod.def;
      return [pipeDef.in, pipeDef.out];
    }
    case 'union':
      return [...(schema as z.core.$ZodUnion)._zod.def.options];
    case 'intersection': {
      const interDef = (schema as z.core.$ZodIntersection)._zod.def;
      return [interDef.left, interDef.right];
    }
    case 'lazy':
      return [(schema as z.core.$ZodLazy)._zod.def.getter()];
    default:
      return [];
  }
}

/** One step down into the schema(s) that validate the child `key`. */
function childSchemas(schema: AnySchema, key: PropertyKey): AnySchema[] {
  const def = schema._zod.def;
  switch (def.type) {
    case 'object': {
      const objectDef = (schema as z.core.$ZodObject)._zod.def;
      const field = typeof key === 'string' ? objectDef.shape[key] : undefined;
      return field ? [field] : objectDef.catchall ? [objectDef.catchall] : [];
    }
    case 'array':
      return [(schema as z.core.$ZodArray)._zod.def.element];
    case 'record':
      return [(schema as z.core.$ZodRecord)._zod.def.valueType];
    case 'map':
      return [(schema as z.core.$ZodMap)._zod.def.valueType];
    case 'tuple': {
      const tupleDef = (schema as z.core.$ZodTuple)._zod.def;
      const item = typeof key === 'number' ? tupleDef.items[key] : undefined;
      return item ? [item] : tupleDef.rest ? [tupleDef.rest] : [];
    }
    default:
      return innerSchemas(schema).flatMap((inner) => childSchemas(inner, key));
  }
}

/** Every non-wrapper schema that could have validated the value at `path`. */
function schemasAt(schema: AnySchema, path: readonly PropertyKey[]): AnySchema[] {
  let level: AnySchema[] = [schema];
  for (const key of path) level = level.flatMap((s) => childSchemas(s, key));
  const leaves: AnySchema[] = [];
  const seen = new Set<AnySchema>();
  const visit = (s: AnySchema, depth: number): void => {
    // Recursive (lazy) schemas could loop forever; wrappers are never this deep in practice.
    if (seen.has(s) || depth > 32) return;
    seen.add(s);
    const inner = innerSchemas(s);
    if (inner.length === 0) leaves.push(s);
    for (const child of inner) visit(child, depth + 1);
  };
  for (const s of level) visit(s, 0);
  return leaves;
}

/**
 * zod reports "expected number" for `z.int()` and `z.number().int()` alike when the
 * input is not a number at all, while pydantic distinguishes int from float errors,
 * so the schema has to tell us whether an integer was wanted.
 */
export function expectsIntegerAt(schema: AnySchema | undefined, path: readonly PropertyKey[]): boolean {
  if (!schema) return false;
  return schemasAt(schema, path).some((leaf) => {
    if (leaf._zod.def.type === 'bigint') return true;
    // `isInt` folds every check (`.int()`, `z.int()`, integer `multipleOf`) for us.
    return leaf instanceof z.ZodNumber && leaf.isInt;
  });
}

/** The fields the object schema(s) under any wrappers declare. */
export function declaredFields(schema: AnySchema): string[] {
  return schemasAt(schema, []).flatMap((leaf) => (leaf._zod.def.type === 'object' ? Object.keys((leaf as z.core.$ZodObject)._zod.def.shape) : []));
}

/** Whether the object schema under any wrappers (`.default({})`, `.optional()`, a pipe) declares the field `name`. */
export function declaresField(schema: AnySchema | undefined, name: string): boolean {
  if (!schema) return false;
  return schemasAt(schema, []).some((leaf) => leaf._zod.def.type === 'object' && Object.hasOwn((leaf as z.core.$ZodObject)._zod.def.shape, name));
}
