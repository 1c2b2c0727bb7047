/**
 * The rate a policy allows: `quota` requests per `windowSeconds`, of which up to `burst` may
 * come at once (a bucket of `burst` units refilled at quota/window). The RateLimit-Policy
 * header advertises `q=quota;w=windowSeconds`.
 */
export interface RateLimit {
  readonly quota: number;
  readonly windowSeconds: number;
  readonly burst: number;
}

/** What one attempt to take units from a bucket got. */
export interface BucketTake {
  /** Units taken: between 0 and the number asked for. */
  readonly granted: number;
  /** Whole units left in the bucket after this take. */
  readonly remaining: number;
  /**
   * Milliseconds until the bucket holds one more unit than now (0 when it is full): with
   * nothing left, when a refused request would be admitted (Retry-After).
   */
  readonly nextUnitMs: number;
}

/** Float slack so that 60000/7 ms steps add up to whole units. */
const EPSILON = 1e-6;

/**
 * GCRA (the generic cell rate algorithm, a token bucket kept as one number): the state is the
 * theoretical arrival time `tat`, the instant at which the bucket would be full again; `null`
 * (or any past instant) is a full bucket. Takes as many of `wanted` units as the bucket holds
 * and returns the new state. Pure, so a shared store can apply it under compare-and-set.
 */
export function gcraTake(tat: number | null, now: number, limit: RateLimit, wanted: number): { tat: number; take: BucketTake } {
  const interval = (limit.windowSeconds * 1000) / limit.quota;
  const capacity = limit.burst * interval;
  const backlog = Math.max(0, (tat ?? now) - now);
  const available = Math.max(0, Math.floor((capacity - backlog) / interval + EPSILON));
  const granted = Math.min(Math.max(0, Math.floor(wanted)), available);
  const nextBacklog = backlog + granted * interval;
  const remaining = available - granted;
  // The next unit frees once the backlog has shrunk below what `remaining + 1` units allow.
  const nextUnitMs = remaining >= limit.burst ? 0 : Math.max(0, nextBacklog - (limit.burst - remaining - 1) * interval);
  return { tat: now + nextBacklog, take: { granted, remaining, nextUnitMs } };
}
