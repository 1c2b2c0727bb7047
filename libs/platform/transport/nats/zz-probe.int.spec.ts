import { randomBytes } from 'node:crypto';
import { RateLimiter, type RateBucketStore, type RateLimit } from '@lore/platform/kernel';
import { kvRateBucketStore } from '@lore/platform/transport/nats';

it('probe', async () => {
  const url = 'nats://127.0.0.1:4222';
  const prefix = `lrl${randomBytes(5).toString('hex')}`;
  let granted = 0; let errors = 0; const takes: number[] = [];
  const mk = (): RateLimiter => {
    const inner = kvRateBucketStore({ url, subjectPrefix: prefix });
    const store: RateBucketStore = { take: async (k, l, w) => { const t0 = Date.now(); const r = await inner.take(k, l, w); takes.push(t0); granted += r.granted; return r; }, close: () => inner.close() };
    return new RateLimiter({ store, leaseMs: 100, onStoreError: () => void errors++ });
  };
  const limit: RateLimit = { quota: 6_000, windowSeconds: 60, burst: 400 };
  const [one, two] = [mk(), mk()];
  const check = [{ policy: 'workspace', id: 'ws', limit }];
  const started = Date.now();
  let admitted = 0;
  for (let round = 0; round < 60; round++) {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).admit(check)));
    admitted += results.filter((r) => r.allowed).length;
  }
  const elapsed = (Date.now() - started) / 1000;
  console.log(JSON.stringify({ admitted, granted, errors, elapsed, firstTake: (takes[0]! - started), bound: 400 + Math.ceil(100 * (elapsed + 0.1)) }));
}, 60000);
