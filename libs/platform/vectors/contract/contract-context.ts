import { useFreshFixture } from '@lore/platform/testing';
import type { Distance, PointPayload, VectorIndex, VectorPoint, VectorStore } from '@lore/platform/vectors/port';

export interface VectorStoreFixture {
  readonly store: VectorStore;
  cleanup(): Promise<void>;
  /** The adapter applies a batch and its checkpoint in one transaction (SQLite); the suite then holds it to that. */
  readonly atomicWrites?: boolean;
  /** Every byte of the adapter's own files (embedded adapters), for the physical-deletion tests. */
  files?(): Buffer;
}

export type VectorStoreFactory = () => Promise<VectorStoreFixture>;

export interface ContractContext {
  store(): VectorStore;
  fixture(): VectorStoreFixture;
  /** A name (index, checkpoint, collection) no other test, nor another run on a shared server, uses. */
  uniqueName(prefix?: string): string;
  /** A fresh, uniquely named index. */
  newIndex(dimensions?: number, distance?: Distance): Promise<VectorIndex>;
}

/** Opens a fresh fixture around every test so that tests never share a connection's state. */
export function useContractContext(factory: VectorStoreFactory): ContractContext {
  const fixture = useFreshFixture(factory, 'vector store');
  const ctx: ContractContext = {
    fixture: fixture.current,
    store: () => fixture.current().store,
    uniqueName: fixture.uniqueName,
    newIndex: async (dimensions = 8, distance: Distance = 'cosine') => {
      const name = ctx.uniqueName('ix');
      await ctx.store().ensureIndex({ name, dimensions, distance });
      return ctx.store().index(name);
    },
  };
  return ctx;
}

// ---- data helpers ----

export { seeded } from '@lore/platform/vectors/port';

/** Components uniform in [-1, 1), already at float32 precision. */
export function randomVector(random: () => number, dimensions: number): number[] {
  return Array.from({ length: dimensions }, () => Math.fround(random() * 2 - 1));
}

export function payload(overrides: Partial<PointPayload> = {}): PointPayload {
  return { content_id: 'content-1', chunk_index: 0, source: null, tags: [], metadata: {}, ...overrides };
}

export function point(id: string, collectionId: string, vector: readonly number[], text = `text of ${id}`, overrides: Partial<PointPayload> = {}): VectorPoint {
  return { id, collectionId, vector, text, payload: payload(overrides) };
}

/** Similarity as the port defines it, in float64 over the stored float32 components. */
export function similarity(a: readonly number[], b: readonly number[], distance: Distance): number {
  if (distance === 'euclidean') {
    let sum = 0;
    a.forEach((x, i) => (sum += (x - (b[i] ?? 0)) ** 2));
    return -Math.sqrt(sum);
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  });
  return dot / Math.sqrt(na * nb);
}

/** Exact top k by brute force: [id, score] best first (ties by id). */
export function bruteForce(points: readonly VectorPoint[], query: readonly number[], distance: Distance, k: number): Array<[string, number]> {
  return points
    .map((p): [string, number] => [p.id, similarity(Array.from(p.vector), query, distance)])
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, k);
}

/**
 * The returned top k equals the exact one, allowing only swaps between points whose exact
 * scores are within `tolerance` of the k-th (float32 arithmetic may order near-ties either way).
 */
export function expectSameTopK(actual: ReadonlyArray<{ id: string; score: number }>, exact: ReadonlyArray<[string, number]>, tolerance = 1e-5): void {
  expect(actual).toHaveLength(exact.length);
  const kth = exact.at(-1)?.[1] ?? 0;
  const exactIds = new Set(exact.map(([id]) => id));
  for (const hit of actual) {
    if (!exactIds.has(hit.id)) expect(Math.abs(hit.score - kth)).toBeLessThan(tolerance);
  }
  const scores = new Map(exact);
  for (const hit of actual) {
    const expected = scores.get(hit.id);
    if (expected !== undefined) expect(hit.score).toBeCloseTo(expected, 4);
  }
  for (let i = 1; i < actual.length; i++) expect((actual[i - 1]?.score ?? 0) + tolerance).toBeGreaterThanOrEqual(actual[i]?.score ?? 0);
}

export const ids = (hits: ReadonlyArray<{ id: string }>): string[] => hits.map((h) => h.id);
export const sortedIds = (hits: ReadonlyArray<{ id: string }>): string[] => ids(hits).sort();
