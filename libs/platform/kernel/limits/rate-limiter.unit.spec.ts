import { gcraTake, type RateLimit } from './gcra';
import { MemoryRateBucketStore } from './rate-bucket-store';
import { boundedKey } from '../bounded-key';
import { bucketKey, RateLimiter, type Admission } from './rate-limiter';

/** 60 a minute (one a second), 5 at once. */
const LIMIT: RateLimit = { quota: 60, windowSeconds: 60, burst: 5 };

class FakeTime {
  t = 1_000_000;
  readonly now = (): number => this.t;
}

describe('gcraTake', () => {
  it('grants the burst at once, then refuses until one interval has passed', () => {
    let tat: number | null = null;
    const now = 1_000;
    for (let i = 0; i < 5; i++) {
      const step = gcraTake(tat, now, LIMIT, 1);
      expect(step.take).toMatchObject({ granted: 1, remaining: 4 - i });
      tat = step.tat;
    }
    const refused = gcraTake(tat, now, LIMIT, 1);
    expect(refused.take).toEqual({ granted: 0, remaining: 0, nextUnitMs: 1_000 });
    expect(gcraTake(tat, now + 999, LIMIT, 1).take.granted).toBe(0);
    expect(gcraTake(tat, now + 1_000, LIMIT, 1).take).toMatchObject({ granted: 1, remaining: 0 });
  });

  it('grants part of a larger claim and says when the next unit frees', () => {
    const first = gcraTake(null, 0, LIMIT, 3);
    expect(first.take).toEqual({ granted: 3, remaining: 2, nextUnitMs: 1_000 });
    const second = gcraTake(first.tat, 0, LIMIT, 10);
    expect(second.take).toEqual({ granted: 2, remaining: 0, nextUnitMs: 1_000 });
    // A full bucket again after the whole burst has refilled.
    expect(gcraTake(second.tat, 5_000, LIMIT, 0).take).toEqual({ granted: 0, remaining: 5, nextUnitMs: 0 });
  });

  it('keeps whole units with intervals that are not whole milliseconds', () => {
    const odd: RateLimit = { quota: 7, windowSeconds: 60, burst: 7 };
    let tat: number | null = null;
    for (let i = 0; i < 7; i++) tat = gcraTake(tat, 0, odd, 1).tat;
    expect(gcraTake(tat, 0, odd, 1).take.granted).toBe(0);
    expect(gcraTake(tat, 60_000, odd, 7).take.granted).toBe(7);
  });
});

describe('RateLimiter', () => {
  const admitAll = async (limiter: RateLimiter, n: number, checks: Parameters<RateLimiter['admit']>[0]): Promise<Admission[]> => {
    const out: Admission[] = [];
    for (let i = 0; i < n; i++) out.push(await limiter.admit(checks));
    return out;
  };

  it('admits the burst, then refuses with Retry-After and remembers the refusal without asking the store', async () => {
    const time = new FakeTime();
    const store = new MemoryRateBucketStore(time.now);
    let asked = 0;
    const counting = { take: (...a: Parameters<MemoryRateBucketStore['take']>) => (asked++, store.take(...a)), close: () => store.close() };
    const limiter = new RateLimiter({ store: counting, leaseMs: 0, now: time.now });
    const check = [{ policy: 'caller', id: 'user:a', limit: LIMIT }];
    const results = await admitAll(limiter, 5, check);
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true]);
    expect(results[0]).toEqual({ allowed: true, states: [{ policy: 'caller', limit: LIMIT, remaining: 4, resetSeconds: 1 }] });
    const refused = await limiter.admit(check);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1, refusedBy: { policy: 'caller', remaining: 0 } });
    const before = asked;
    await limiter.admit(check);
    expect(asked).toBe(before);
    time.t += 1_000;
    expect((await limiter.admit(check)).allowed).toBe(true);
  });

  it('answers at once from an in-process store, the same budget as admit, and defers to admit for a shared one', async () => {
    const time = new FakeTime();
    const limiter = new RateLimiter({ store: new MemoryRateBucketStore(time.now), leaseMs: 0, now: time.now });
    const check = [{ policy: 'caller', id: 'user:sync', limit: LIMIT }];
    const atOnce = Array.from({ length: 3 }, () => limiter.admitAtOnce(check));
    expect(atOnce.map((a) => a?.allowed)).toEqual([true, true, true]);
    expect(atOnce[2]).toEqual({ allowed: true, states: [{ policy: 'caller', limit: LIMIT, remaining: 2, resetSeconds: 1 }] });
    // One budget: admit sees the units admitAtOnce took, and the other way round.
    expect((await admitAll(limiter, 2, check)).map((a) => a.allowed)).toEqual([true, true]);
    expect(limiter.admitAtOnce(check)).toMatchObject({ allowed: false, refusedBy: { policy: 'caller' } });
    const store = new MemoryRateBucketStore(time.now);
    const shared = new RateLimiter({ store: { take: (...a: Parameters<MemoryRateBucketStore['take']>) => store.take(...a), close: () => store.close() }, leaseMs: 0, now: time.now });
    expect(shared.admitAtOnce(check)).toBeUndefined();
  });

  it('keeps callers apart, and a refusing workspace gives the caller its unit back', async () => {
    const time = new FakeTime();
    const limiter = new RateLimiter({ store: new MemoryRateBucketStore(time.now), leaseMs: 0, now: time.now });
    const workspace = { policy: 'workspace', id: 'ws', limit: { ...LIMIT, burst: 3 } };
    const a = [{ policy: 'caller', id: 'a', limit: LIMIT }, workspace];
    const b = [{ policy: 'caller', id: 'b', limit: LIMIT }, workspace];
    expect((await admitAll(limiter, 3, a)).every((r) => r.allowed)).toBe(true);
    const refused = await limiter.admit(b);
    expect(refused).toMatchObject({ allowed: false, refusedBy: { policy: 'workspace' } });
    // b's caller budget is whole: the refused request cost it nothing.
    const alone = await limiter.admit([{ policy: 'caller', id: 'b', limit: LIMIT }]);
    expect(alone).toMatchObject({ allowed: true, states: [{ remaining: 4 }] });
    // a's own budget still has 2 of 5, but the workspace is spent.
    expect(await limiter.admit(a)).toMatchObject({ allowed: false, refusedBy: { policy: 'workspace' } });
  });

  it('with leases, two limiters on one store together admit no more than the bucket holds', async () => {
    const time = new FakeTime();
    const store = new MemoryRateBucketStore(time.now);
    const big: RateLimit = { quota: 6_000, windowSeconds: 60, burst: 200 };
    const one = new RateLimiter({ store, leaseMs: 100, now: time.now });
    const two = new RateLimiter({ store, leaseMs: 100, now: time.now });
    const check = [{ policy: 'caller', id: 'shared', limit: big }];
    let admitted = 0;
    // 1 s at 1000 requests/s from each limiter against 100/s with a burst of 200.
    for (let ms = 0; ms < 1_000; ms++) {
      for (const limiter of [one, two]) if ((await limiter.admit(check)).allowed) admitted++;
      time.t += 1;
    }
    expect(admitted).toBeLessThanOrEqual(200 + 100);
    // Leases lapse unused only at the edges: close to what the bucket allowed.
    expect(admitted).toBeGreaterThanOrEqual(250);
  });

  it('claims ahead, so a steady caller asks the store far less than once per request', async () => {
    const time = new FakeTime();
    const store = new MemoryRateBucketStore(time.now);
    let asked = 0;
    const counting = { take: (...a: Parameters<MemoryRateBucketStore['take']>) => (asked++, store.take(...a)), close: () => store.close() };
    const limiter = new RateLimiter({ store: counting, leaseMs: 100, now: time.now });
    const check = [{ policy: 'caller', id: 'steady', limit: { quota: 600_000, windowSeconds: 60, burst: 100_000 } }];
    for (let i = 0; i < 2_000; i++) {
      expect((await limiter.admit(check)).allowed).toBe(true);
      if (i % 2 === 0) time.t += 1;
    }
    expect(asked).toBeLessThan(100);
  });

  it('fails open when the store fails, and says so', async () => {
    const errors: unknown[] = [];
    const broken = { take: () => Promise.reject(new Error('store down')), close: () => Promise.resolve() };
    const limiter = new RateLimiter({ store: broken, leaseMs: 100, onStoreError: (e) => errors.push(e) });
    expect((await limiter.admit([{ policy: 'caller', id: 'x', limit: LIMIT }])).allowed).toBe(true);
    expect(errors).toHaveLength(1);
  });
});

describe('bucketKey', () => {
  it('is short and made of key-value-safe characters whatever the id', () => {
    const key = bucketKey('caller', `user:${'é*>. \u0000'.repeat(51)}`);
    expect(key).toMatch(/^caller_[A-Za-z0-9_-]{43}$/);
    expect(key).toBe(boundedKey('caller', `user:${'é*>. \u0000'.repeat(51)}`));
    expect(bucketKey('caller', 'a')).not.toBe(bucketKey('caller', 'b'));
  });
});

describe('RateLimiter over a slow shared store', () => {
  it('never admits a request that took no unit, though a refusal lapses while the request waits', async () => {
    // A store that answers after a few ms, as NATS does: refusals lapse between the store's answer and the admission.
    let tat: number | null = null;
    let granted = 0;
    const store = {
      take: async (_key: string, limit: RateLimit, wanted: number) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 8));
        const step = gcraTake(tat, Date.now(), limit, wanted);
        tat = step.tat;
        granted += step.take.granted;
        return step.take;
      },
      close: async () => undefined,
    };
    const limit: RateLimit = { quota: 6_000, windowSeconds: 60, burst: 400 };
    const [one, two] = [new RateLimiter({ store, leaseMs: 100 }), new RateLimiter({ store, leaseMs: 100 })];
    let admitted = 0;
    for (let round = 0; round < 150; round++) {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).admit([{ policy: 'workspace', id: 'ws', limit }])));
      admitted += results.filter((r) => r.allowed).length;
    }
    expect(admitted).toBe(granted);
  });
});
