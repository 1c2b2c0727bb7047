import { boundedKey } from '../bounded-key';
import type { RateLimit } from './gcra';
import type { RateBucketStore } from './rate-bucket-store';

/** One budget a request draws on: the policy's name, whose bucket (any string), and its limit. */
export interface RateCheck {
  readonly policy: string;
  readonly id: string;
  readonly limit: RateLimit;
}

/** A policy's state after a request, for the RateLimit header. */
export interface PolicyState {
  readonly policy: string;
  readonly limit: RateLimit;
  readonly remaining: number;
  /** Whole seconds until the bucket holds one more unit (0 when full). */
  readonly resetSeconds: number;
}

export type Admission =
  | { readonly allowed: true; readonly states: readonly PolicyState[] }
  | { readonly allowed: false; readonly refusedBy: PolicyState; readonly retryAfterSeconds: number };

export interface RateLimiterOptions {
  readonly store: RateBucketStore;
  /**
   * How long units claimed ahead from the store stay usable in this process. 0: none are
   * claimed ahead, every request asks the store (right for the in-process store).
   */
  readonly leaseMs: number;
  readonly now?: () => number;
  /** The store failed: the request is admitted (a limiter outage must not become an API outage). */
  readonly onStoreError?: (error: unknown) => void;
}

/** Units claimed ahead of demand and not yet used: this process's share of one shared bucket. */
interface Lease {
  units: number;
  /** Units of this lease used so far (sizes the next claim). */
  used: number;
  size: number;
  expiresAt: number;
  /** Units the store had left after the claim. */
  remote: number;
  nextUnitAt: number;
  refusedUntil: number;
  claim: Promise<void> | null;
}

/** A refunded unit stays usable at least this long (it was taken from the store already). */
const REFUND_GRACE_MS = 1_000;
/** Past this many leases, expired ones are dropped at the next claim. */
const SWEEP_ABOVE = 10_000;

/**
 * Admits requests against one or more rate-limit budgets (a caller's, a workspace's).
 *
 * With a shared store (NATS key-value, one round trip per claim) each process claims units
 * ahead, as a lease that lapses after `leaseMs`: a claim's size starts at 1, doubles while
 * leases run out before they lapse and shrinks to what was used when they lapse, capped at
 * `leaseMs` worth of the policy's rate and a quarter of its burst. Every admitted request has
 * taken a unit from the shared bucket, so the processes together never admit more than the
 * limit (shifted by at most one lease period); unused leased units lapse, so they may admit
 * slightly fewer. A refusal is remembered until the store said a unit frees, so a client
 * hammering after a 429 costs no round trips.
 */
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly now: () => number;

  constructor(private readonly options: RateLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Takes one unit of every budget, or none: a unit already taken when a later budget refuses is given back. */
  async admit(checks: readonly RateCheck[]): Promise<Admission> {
    const store = this.options.store;
    if (store.takeNow !== undefined) return this.admitNow(checks, store.takeNow.bind(store));
    return this.admitThroughStore(checks);
  }

  /**
   * The admission at once when the store answers synchronously (in this process), else
   * undefined (then `admit`): every request is admitted, and a promise chain around an answer
   * already known costs the request path for nothing.
   */
  admitAtOnce(checks: readonly RateCheck[]): Admission | undefined {
    const store = this.options.store;
    return store.takeNow === undefined ? undefined : this.admitNow(checks, store.takeNow.bind(store));
  }

  private async admitThroughStore(checks: readonly RateCheck[]): Promise<Admission> {
    const taken: Lease[] = [];
    const states: PolicyState[] = [];
    for (const check of checks) {
      const { lease, took } = await this.takeOne(bucketKey(check.policy, check.id), check.limit);
      const now = this.now();
      // Decided by takeOne, not by the clock again: a refusal that lapsed meanwhile took no unit.
      if (!took) {
        for (const t of taken) this.refund(t, now);
        const retryAfterSeconds = Math.max(1, Math.ceil((lease.refusedUntil - now) / 1000));
        return { allowed: false, refusedBy: { policy: check.policy, limit: check.limit, remaining: 0, resetSeconds: retryAfterSeconds }, retryAfterSeconds };
      }
      taken.push(lease);
      const remaining = Math.min(check.limit.burst, lease.units + lease.remote);
      const resetSeconds = remaining >= check.limit.burst ? 0 : Math.ceil(Math.max(0, lease.nextUnitAt - now) / 1000);
      states.push({ policy: check.policy, limit: check.limit, remaining, resetSeconds });
    }
    return { allowed: true, states };
  }

  /**
   * Against a store in this process (standalone): one take per budget, nothing claimed ahead,
   * no promise per budget — this runs on every request.
   */
  private admitNow(checks: readonly RateCheck[], takeNow: NonNullable<RateBucketStore['takeNow']>): Admission {
    const keys = checks.map((check) => bucketKey(check.policy, check.id));
    // Look first (taking none), so that a refusal by a later budget never spends an earlier one's unit.
    for (const [i, check] of checks.entries()) {
      const peek = takeNow(keys[i] ?? '', check.limit, 0);
      if (peek.remaining < 1) {
        const retryAfterSeconds = Math.max(1, Math.ceil(peek.nextUnitMs / 1000));
        return { allowed: false, refusedBy: { policy: check.policy, limit: check.limit, remaining: 0, resetSeconds: retryAfterSeconds }, retryAfterSeconds };
      }
    }
    const states = checks.map((check, i): PolicyState => {
      const take = takeNow(keys[i] ?? '', check.limit, 1);
      const resetSeconds = take.remaining >= check.limit.burst ? 0 : Math.ceil(take.nextUnitMs / 1000);
      return { policy: check.policy, limit: check.limit, remaining: take.remaining, resetSeconds };
    });
    return { allowed: true, states };
  }

  /** The key's lease, and whether one unit of it was taken for this request (else it is refused until `refusedUntil`). */
  private async takeOne(key: string, limit: RateLimit): Promise<{ lease: Lease; took: boolean }> {
    for (;;) {
      const lease = this.leases.get(key);
      if (lease?.claim) {
        await lease.claim;
        continue;
      }
      const now = this.now();
      if (lease !== undefined && lease.refusedUntil > now) return { lease, took: false };
      if (lease !== undefined && lease.units > 0 && lease.expiresAt > now) {
        lease.units--;
        lease.used++;
        return { lease, took: true };
      }
      const claimed = this.claim(key, limit, lease);
      await claimed.claim;
      // Fresh from the store: usable now even when leases lapse at once (leaseMs 0).
      if (claimed.refusedUntil > this.now()) return { lease: claimed, took: false };
      if (claimed.units > 0) {
        claimed.units--;
        claimed.used++;
        return { lease: claimed, took: true };
      }
    }
  }

  private claim(key: string, limit: RateLimit, previous: Lease | undefined): Lease {
    if (previous === undefined && this.leases.size > SWEEP_ABOVE) this.sweep();
    const lease: Lease = previous ?? { units: 0, used: 0, size: 0, expiresAt: 0, remote: 0, nextUnitAt: 0, refusedUntil: 0, claim: null };
    const size = this.nextSize(limit, previous);
    lease.claim = this.options.store.take(key, limit, size).then(
      (take) => {
        const now = this.now();
        Object.assign(lease, { units: take.granted, used: 0, size, expiresAt: now + this.options.leaseMs, remote: take.remaining, nextUnitAt: now + take.nextUnitMs });
        lease.refusedUntil = take.granted === 0 ? now + Math.max(1, take.nextUnitMs) : 0;
      },
      (error: unknown) => {
        this.options.onStoreError?.(error);
        // Fail open for the request that asked: one unit, usable at once only.
        Object.assign(lease, { units: 1, used: 0, size: 1, expiresAt: this.now() + 1, remote: limit.burst, nextUnitAt: 0, refusedUntil: 0 });
      },
    ).finally(() => {
      lease.claim = null;
    });
    this.leases.set(key, lease);
    return lease;
  }

  private nextSize(limit: RateLimit, previous: Lease | undefined): number {
    if (this.options.leaseMs <= 0) return 1;
    const cap = Math.max(1, Math.min(Math.floor((limit.quota * this.options.leaseMs) / (limit.windowSeconds * 1000)), Math.floor(limit.burst / 4)));
    if (previous === undefined || previous.size === 0) return 1;
    // Ran out before it lapsed: demand is higher, claim more; lapsed with units left: claim what was used.
    return previous.units === 0 ? Math.min(cap, previous.size * 2) : Math.min(cap, Math.max(1, previous.used));
  }

  private refund(lease: Lease, now: number): void {
    lease.units++;
    lease.used--;
    lease.expiresAt = Math.max(lease.expiresAt, now + REFUND_GRACE_MS);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, lease] of this.leases) {
      if (lease.claim === null && lease.expiresAt <= now && lease.refusedUntil <= now) this.leases.delete(key);
    }
  }
}

/**
 * The store key of a bucket: the policy and a hash of whose it is (the kernel's `boundedKey`:
 * `<policy>_` and 43 base64url characters), so that any id (up to 255 characters of anything)
 * gives a short key of the characters NATS key-value allows ([-/_=.a-zA-Z0-9]).
 */
export function bucketKey(policy: string, id: string): string {
  const known = `${policy}\u0000${id}`;
  const cached = bucketKeys.get(known);
  if (cached !== undefined) return cached;
  const key = boundedKey(policy, id);
  // Bounded: active callers and workspaces; cleared rather than tracked when it fills.
  if (bucketKeys.size >= BUCKET_KEY_CACHE) bucketKeys.clear();
  bucketKeys.set(known, key);
  return key;
}

/** Hashing on every request showed in profiles: the keys of recent callers are kept. */
const BUCKET_KEY_CACHE = 10_000;
const bucketKeys = new Map<string, string>();
