/**
 * Shape rules every adapter applies before it touches its engine, so that they reject the
 * same inputs: index names (spliced into SQL and Qdrant collection names), points, query
 * bounds. Filters have their own compiler (`vector-filter.ts`).
 */
import { AppError, type FusionOptions } from '@lore/platform/kernel';
import { DEFAULT_FUSION, DEFAULT_HYBRID_CANDIDATES, validateFusion } from './fusion';
import type { Distance, HybridQuery, JsonValue, PointPayload, SearchScope, Vector, VectorIndexDefinition, VectorPoint } from './vectors.port';

/** sqlite-vec's largest k; also the deepest a hybrid leg goes. */
export const MAX_CANDIDATES = 4096;
export const MAX_DIMENSIONS = 8192;
export const MAX_ID_LENGTH = 256;
export const MAX_COLLECTIONS_PER_QUERY = 256;

const INDEX_NAME = /^[a-z0-9][a-z0-9_]{0,47}$/;
const DISTANCES: readonly Distance[] = ['cosine', 'euclidean'];

function invalid(loc: ReadonlyArray<string | number>, msg: string): never {
  throw new AppError('validation', msg, [{ loc, msg, type: 'value_error' }]);
}

export function assertIndexName(name: string): void {
  if (typeof name !== 'string' || !INDEX_NAME.test(name)) {
    invalid(['index'], `invalid index name ${JSON.stringify(name)}: use [a-z0-9_], starting with a letter or digit, at most 48 characters`);
  }
}

export function assertIndexDefinition(definition: VectorIndexDefinition): void {
  assertIndexName(definition.name);
  if (!Number.isSafeInteger(definition.dimensions) || definition.dimensions < 1 || definition.dimensions > MAX_DIMENSIONS) {
    invalid(['dimensions'], `dimensions must be an integer from 1 to ${MAX_DIMENSIONS}`);
  }
  if (!DISTANCES.includes(definition.distance)) invalid(['distance'], `distance must be one of ${DISTANCES.join(', ')}`);
}

export function sameDefinition(a: VectorIndexDefinition, b: VectorIndexDefinition): boolean {
  return a.name === b.name && a.dimensions === b.dimensions && a.distance === b.distance;
}

export function assertId(id: unknown, loc: ReadonlyArray<string | number> = ['id']): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) invalid(loc, `ids must be strings of 1 to ${MAX_ID_LENGTH} characters`);
}

export function assertVector(vector: Vector, definition: Pick<VectorIndexDefinition, 'dimensions' | 'distance'>, loc: ReadonlyArray<string | number> = ['vector']): void {
  if (!(Array.isArray(vector) || vector instanceof Float32Array)) invalid(loc, 'a vector must be an array of numbers');
  if (vector.length !== definition.dimensions) invalid(loc, `the vector has ${vector.length} dimensions, the index ${definition.dimensions}`);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const x: unknown = vector[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) invalid([...loc, i], 'vector components must be finite numbers');
    norm += x * x;
  }
  if (definition.distance === 'cosine' && !(norm > 0)) invalid(loc, 'a zero vector has no direction (cosine index)');
}

/**
 * The vector as a cosine index stores it: scaled to unit length (Qdrant does the same), so
 * that every adapter returns the same vector from `get(…, { withVector })`.
 */
export function storedVector(vector: Vector, distance: Distance): Float32Array {
  const floats = Float32Array.from(vector);
  if (distance !== 'cosine') return floats;
  let norm = 0;
  for (const x of floats) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < floats.length; i++) floats[i] = (floats[i] ?? 0) / norm;
  return floats;
}

/** A JSON value that survives a round trip: finite numbers, no undefined, plain objects only. */
function assertJson(value: unknown, loc: ReadonlyArray<string | number>, depth = 0): asserts value is JsonValue {
  if (depth > 32) invalid(loc, 'metadata nested deeper than 32 levels');
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) invalid(loc, 'metadata numbers must be finite');
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJson(item, [...loc, i], depth + 1));
    return;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) assertJson(item, [...loc, key], depth + 1);
    return;
  }
  invalid(loc, 'metadata must be plain JSON');
}

/** Validates the payload fields present (all of them unless `partial`). */
export function assertPayload(payload: Partial<PointPayload>, partial: boolean, loc: ReadonlyArray<string | number> = ['payload']): void {
  if (payload === null || typeof payload !== 'object') invalid(loc, 'a payload must be an object');
  const known = new Set(['content_id', 'chunk_index', 'source', 'tags', 'metadata']);
  for (const key of Object.keys(payload)) if (!known.has(key)) invalid([...loc, key], `unknown payload field ${key}`);
  const has = (key: keyof PointPayload): boolean => payload[key] !== undefined || !partial;
  if (has('content_id') && (typeof payload.content_id !== 'string' || payload.content_id.length === 0 || payload.content_id.length > MAX_ID_LENGTH)) {
    invalid([...loc, 'content_id'], `content_id must be a string of 1 to ${MAX_ID_LENGTH} characters`);
  }
  if (has('chunk_index') && (!Number.isSafeInteger(payload.chunk_index) || (payload.chunk_index ?? -1) < 0)) {
    invalid([...loc, 'chunk_index'], 'chunk_index must be an integer >= 0');
  }
  if (has('source') && payload.source !== null && typeof payload.source !== 'string') invalid([...loc, 'source'], 'source must be a string or null');
  if (has('tags') && (!Array.isArray(payload.tags) || !payload.tags.every((tag) => typeof tag === 'string'))) {
    invalid([...loc, 'tags'], 'tags must be an array of strings');
  }
  if (has('metadata')) {
    const metadata: unknown = payload.metadata;
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) invalid([...loc, 'metadata'], 'metadata must be an object');
    assertJson(metadata, [...loc, 'metadata']);
  }
}

export function assertPoint(point: VectorPoint, definition: Pick<VectorIndexDefinition, 'dimensions' | 'distance'>): void {
  assertId(point.id);
  assertId(point.collectionId, ['collectionId']);
  assertVector(point.vector, definition);
  if (typeof point.text !== 'string') invalid(['text'], 'text must be a string');
  assertPayload(point.payload, false);
}

export function assertScope(scope: SearchScope): void {
  const { collections } = scope;
  if (!Array.isArray(collections) || collections.length === 0) invalid(['collections'], 'a search or write is scoped to at least one collection id');
  if (collections.length > MAX_COLLECTIONS_PER_QUERY) invalid(['collections'], `at most ${MAX_COLLECTIONS_PER_QUERY} collections at once`);
  collections.forEach((id, i) => assertId(id, ['collections', i]));
}

export function assertLimit(limit: number, loc = 'limit'): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_CANDIDATES) invalid([loc], `${loc} must be an integer from 1 to ${MAX_CANDIDATES}`);
}

/** The hybrid query's fusion and per-leg depth, defaults applied. */
export function planHybrid(query: HybridQuery): { fusion: FusionOptions; candidates: number } {
  assertLimit(query.limit);
  const fusion = query.fusion ?? DEFAULT_FUSION;
  validateFusion(fusion);
  const candidates = query.candidates ?? Math.min(MAX_CANDIDATES, Math.max(query.limit, DEFAULT_HYBRID_CANDIDATES));
  assertLimit(candidates, 'candidates');
  if (candidates < query.limit) invalid(['candidates'], 'candidates must be at least limit');
  return { fusion, candidates };
}

/** A normalised copy of a payload, as adapters store and return it. */
export function clonePayload(payload: PointPayload): PointPayload {
  return {
    content_id: payload.content_id,
    chunk_index: payload.chunk_index,
    source: payload.source,
    tags: [...payload.tags],
    metadata: JSON.parse(JSON.stringify(payload.metadata)) as PointPayload['metadata'],
  };
}

/** Unique ids, first occurrences first. */
export function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
