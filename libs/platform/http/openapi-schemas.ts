import { z } from 'zod';

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export type SchemaIo = 'input' | 'output';

const COMPONENT_PREFIX = '#/components/schemas/';
const DEFS_PREFIX = '#/$defs/';

/**
 * Collects `components.schemas` while zod schemas are embedded into the document.
 *
 * `z.toJSONSchema` emits each schema as a standalone JSON Schema whose shared or
 * recursive parts live in a local `$defs` and are referenced as `#/$defs/X` (or `#` for
 * a recursive root). Inside an OpenAPI document those pointers resolve against the
 * document root, not the schema, so they would dangle; we lift them into components
 * and rewrite the pointers.
 */
export class ComponentSchemas {
  private readonly schemas = new Map<string, JsonObject>();

  /** Registers a fixed component (error bodies); the first registration wins. */
  define(name: string, schema: JsonObject): void {
    if (!this.schemas.has(name)) this.schemas.set(name, schema);
  }

  get(name: string): JsonObject | undefined {
    return this.schemas.get(name);
  }

  /**
   * The document-ready JSON Schema of `schema`. `context` (e.g. `createMemory_body`)
   * names lifted definitions that have no `id` of their own, which keeps names unique
   * per operation and stable across runs.
   */
  embed(schema: z.ZodType, io: SchemaIo, context: string): JsonObject {
    const raw = toJson(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', cycles: 'ref', reused: 'inline' }));
    const rawObject = isObject(raw) ? raw : {};
    const defs = isObject(rawObject['$defs']) ? rawObject['$defs'] : {};
    const suffix = io === 'input' ? 'Input' : 'Output';

    // Anonymous definitions (`__schema0`) get the operation's context; named ones keep their id
    // unless a different schema already took it (input and output forms of one model can differ).
    const names = new Map<string, string>();
    const rootRecursive = containsRef(rawObject, '#');
    const rootName = rootRecursive ? this.freeName(context) : undefined;
    for (const key of Object.keys(defs).sort()) {
      names.set(key, key.startsWith('__') ? this.freeName(`${context}_${key.replace(/^_+/, '')}`) : key);
    }
    const rewrite = (value: JsonValue): JsonValue => rewriteRefs(value, names, rootName);
    // First settle every name (a rename changes the refs of the others), then store.
    for (const key of Object.keys(defs).sort()) {
      const wanted = names.get(key) ?? key;
      const existing = this.schemas.get(wanted);
      const body = rewrite(defs[key] ?? {});
      if (existing !== undefined && !sameJson(existing, body)) names.set(key, this.freeName(`${wanted}-${suffix}`, body));
    }
    for (const key of Object.keys(defs).sort()) {
      this.schemas.set(names.get(key) ?? key, asObject(rewrite(defs[key] ?? {})));
    }

    const { $defs: _ignored, ...rootOnly } = rawObject;
    const root = asObject(rewrite(rootOnly));
    if (rootName === undefined) return root;
    this.schemas.set(rootName, root);
    return { $ref: `${COMPONENT_PREFIX}${rootName}` };
  }

  /** Resolves a top-level component `$ref`, e.g. to list the properties of a parameter object. */
  deref(schema: JsonObject): JsonObject {
    const ref = schema['$ref'];
    if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_PREFIX)) return schema;
    return this.schemas.get(ref.slice(COMPONENT_PREFIX.length)) ?? schema;
  }

  /** Components sorted by name so the document is byte-identical across runs. */
  toObject(): JsonObject {
    const out: JsonObject = {};
    for (const name of [...this.schemas.keys()].sort()) {
      const schema = this.schemas.get(name);
      if (schema) out[name] = schema;
    }
    return out;
  }

  private freeName(base: string, content?: JsonValue): string {
    const clean = base.replace(/[^A-Za-z0-9._-]/g, '_');
    let candidate = clean;
    for (let n = 2; ; n += 1) {
      const existing = this.schemas.get(candidate);
      if (existing === undefined || (content !== undefined && sameJson(existing, content))) return candidate;
      candidate = `${clean}${n}`;
    }
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: JsonValue): JsonObject {
  return isObject(value) ? value : {};
}

function sameJson(a: JsonValue, b: JsonValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Keys zod adds that mean nothing (or the wrong thing) inside an OpenAPI document. */
const DROPPED_KEYS = new Set(['$schema', '~standard', '$id']);

/**
 * Plain-JSON copy of zod's output without `$schema`/`$id`. The +/-2^53 bounds zod gives every
 * integer stay: the API refuses integers beyond them, so the documents must say so.
 */
function toJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value !== 'object') return null;
  const out: JsonObject = {};
  const source = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(source)) {
    if (DROPPED_KEYS.has(key) || child === undefined || typeof child === 'function') continue;
    out[key] = toJson(child);
  }
  return out;
}

function containsRef(value: JsonValue, target: string): boolean {
  if (Array.isArray(value)) return value.some((v) => containsRef(v, target));
  if (!isObject(value)) return false;
  return Object.entries(value).some(([k, v]) => (k === '$ref' && v === target) || containsRef(v, target));
}

function rewriteRefs(value: JsonValue, names: ReadonlyMap<string, string>, rootName: string | undefined): JsonValue {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names, rootName));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string') {
      out[key] = rewriteRef(child, names, rootName);
    } else {
      out[key] = rewriteRefs(child, names, rootName);
    }
  }
  return out;
}

function rewriteRef(ref: string, names: ReadonlyMap<string, string>, rootName: string | undefined): string {
  if (ref === '#' && rootName !== undefined) return `${COMPONENT_PREFIX}${rootName}`;
  if (!ref.startsWith(DEFS_PREFIX)) return ref;
  const key = ref.slice(DEFS_PREFIX.length);
  return `${COMPONENT_PREFIX}${names.get(key) ?? key}`;
}
