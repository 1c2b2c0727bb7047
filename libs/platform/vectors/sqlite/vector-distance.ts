/**
 * The vector leg's distance of a stored vector to a query, computed here rather than by a
 * vec0 point read per candidate: the same operations, in the same order and in the same
 * single precision as sqlite-vec 0.1.9's scalar `vec_distance_cosine` / `vec_distance_l2`
 * (the functions its vec0 KNN uses; the shipped build has no SIMD variant, `vec_debug()`), so
 * that the double returned is the one sqlite-vec returns for the same two float32 vectors
 * (`vector-distance.int.spec.ts` checks it against sqlite-vec on random and real-shaped vectors).
 * Every vector score the index reports goes through this function, whatever path found the point.
 *
 * Math.fround after each float operation is exact emulation: a product of two float32 values
 * is exact in a double, and a double sum of two float32 values rounded once to float32 is the
 * float32 sum (53 ≥ 2 × 24 + 2 bits).
 */
import type { Distance } from '@lore/platform/vectors/port';

export type DistanceFunction = (query: Float32Array, vector: Float32Array) => number;

const fround = Math.fround;

/** 1 − cos as sqlite-vec computes it: float accumulations, double square roots and division, float result. */
export function cosineDistance(query: Float32Array, vector: Float32Array): number {
  let dot = 0;
  let queryNorm = 0;
  let vectorNorm = 0;
  const n = Math.min(query.length, vector.length);
  for (let i = 0; i < n; i++) {
    const q = query[i] as number;
    const v = vector[i] as number;
    dot = fround(dot + fround(q * v));
    queryNorm = fround(queryNorm + fround(q * q));
    vectorNorm = fround(vectorNorm + fround(v * v));
  }
  return fround(1 - dot / (Math.sqrt(queryNorm) * Math.sqrt(vectorNorm)));
}

/** The L2 distance as sqlite-vec computes it: float accumulation of squared differences, double square root, float result. */
export function l2Distance(query: Float32Array, vector: Float32Array): number {
  let sum = 0;
  const n = Math.min(query.length, vector.length);
  for (let i = 0; i < n; i++) {
    const d = fround((query[i] as number) - (vector[i] as number));
    sum = fround(sum + fround(d * d));
  }
  return fround(Math.sqrt(sum));
}

export function distanceFunction(distance: Distance): DistanceFunction {
  return distance === 'cosine' ? cosineDistance : l2Distance;
}
