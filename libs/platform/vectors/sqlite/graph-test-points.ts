/** Test data for the graph suites: points around 40 random centres (the shape real embeddings have), and the exact nearest. */
import type { Vector, VectorPoint } from '@lore/platform/vectors/port';
import { seeded } from '@lore/platform/vectors/port';

export const DIMENSIONS = 16;

export function clustered(count: number, seed: number, prefix = 'p', collectionId = 'c'): VectorPoint[] {
  const random = seeded(seed);
  const centres = Array.from({ length: 40 }, () => Array.from({ length: DIMENSIONS }, () => random() * 2 - 1));
  return Array.from({ length: count }, (_, i) => {
    const centre = centres[Math.floor(random() * centres.length)] ?? [];
    const vector = centre.map((x) => Math.fround(x + (random() - 0.5) * 0.6));
    return { id: `${prefix}${i}`, collectionId, vector, text: `text ${i}`, payload: { content_id: `content-${i % 50}`, chunk_index: i % 7, source: null, tags: [], metadata: { group: i % 100 } } };
  });
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    dot += (a[d] ?? 0) * (b[d] ?? 0);
    na += (a[d] ?? 0) ** 2;
    nb += (b[d] ?? 0) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

export const exactTop = (points: readonly VectorPoint[], query: Vector, k: number): string[] =>
  points
    .map((p) => [p.id, cosine(p.vector, query)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([id]) => id);
