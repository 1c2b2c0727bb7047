import { gcraTake, type BucketTake, type RateLimit } from './gcra';

/**
 * Where rate-limit buckets live: in the process (standalone) or shared by every gateway
 * process (the NATS key-value adapter). `key` is already bounded and hashed by the caller.
 */
export interface RateBucketStore {
  /** Takes up to `wanted` units from the bucket `key` (as many as it holds, possibly none). */
  take(key: string, limit: RateLimit, wanted: number): Promise<BucketTake>;
  /** The same, answered at once: only a store in this process has it (the limiter then claims nothing ahead). */
  takeNow?(key: string, limit: RateLimit, wanted: number): BucketTake;
  close(): Promise<void>;
}

/** Buckets are forgotten once full again; the sweep runs at most this often. */
const SWEEP_INTERVAL_MS = 60_000;

/** Buckets in this process's memory: the standalone topology, and tests. */
export class MemoryRateBucketStore implements RateBucketStore {
  private readonly buckets = new Map<string, number>();
  private lastSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  take(key: string, limit: RateLimit, wanted: number): Promise<BucketTake> {
    return Promise.resolve(this.takeNow(key, limit, wanted));
  }

  takeNow(key: string, limit: RateLimit, wanted: number): BucketTake {
    const now = this.now();
    this.sweep(now);
    const { tat, take } = gcraTake(this.buckets.get(key) ?? null, now, limit, wanted);
    if (take.granted > 0) this.buckets.set(key, tat);
    return take;
  }

  close(): Promise<void> {
    this.buckets.clear();
    return Promise.resolve();
  }

  /** A bucket whose arrival time has passed is full: the same as no entry, so memory stays bounded by active callers. */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, tat] of this.buckets) if (tat <= now) this.buckets.delete(key);
  }
}
