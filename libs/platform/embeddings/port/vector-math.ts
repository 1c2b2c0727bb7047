/** Pure vector helpers shared by the adapters (and by tests). */

/** Scales `vector` in place to unit L2 length and returns it; a zero vector stays zero. */
export function l2Normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    sum += x * x;
  }
  if (sum === 0 || !Number.isFinite(sum)) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  return vector;
}

export function l2Norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    sum += x * x;
  }
  return Math.sqrt(sum);
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vectors of different lengths: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Cosine similarity of two vectors of any length (not only unit ones); 0 when either is zero. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const norms = l2Norm(a) * l2Norm(b);
  return norms === 0 ? 0 : dot(a, b) / norms;
}

/** Consecutive slices of at most `size` items. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Indices of `texts` ordered by length (stable), so that batches hold texts of similar length. */
export function lengthOrder(texts: readonly string[]): number[] {
  return texts.map((_, i) => i).sort((a, b) => (texts[a] as string).length - (texts[b] as string).length || a - b);
}
