import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { describeWithServer } from '@lore/platform/testing';
import { RateLimiter, type RateBucketStore, type RateLimit } from '@lore/platform/kernel';
import { kvRateBucketStore, rateLimitBucketName } from './kv-rate-bucket-store';

/** Two gateways' limiters over one NATS hold one budget between them (issue 16, item 4). */
describeWithServer('NATS_URL', 'NATS key-value rate-limit buckets', (url) => {
  let admin: NatsConnection;
  let prefix: string;
  const stores: RateBucketStore[] = [];

  beforeAll(async () => {
    admin = await connect({ servers: url, name: 'lore-rate-limit-admin' });
  });
  afterAll(() => admin.close());
  beforeEach(() => {
    prefix = `lrl${randomBytes(5).toString('hex')}`;
    storeErrors = 0;
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    const jsm = await admin.jetstreamManager();
    await jsm.streams.delete(`KV_${rateLimitBucketName(prefix)}`).catch(() => undefined);
  });

  /** A gateway's limiter: its own connection, claiming ahead as the gateway does. */
  /** Takes the store failed (a NATS request that timed out on a loaded machine): each admits one request, by design. */
  let storeErrors = 0;
  const gateway = (): RateLimiter => {
    const store = kvRateBucketStore({ url, subjectPrefix: prefix, name: 'lore-rate-limit-test' });
    stores.push(store);
    return new RateLimiter({ store, leaseMs: 100, onStoreError: () => void storeErrors++ });
  };

  it('admits a burst once across two gateways taking at the same time, then refuses on both', async () => {
    const limit: RateLimit = { quota: 60, windowSeconds: 60, burst: 10 };
    const [one, two] = [gateway(), gateway()];
    const check = [{ policy: 'caller', id: 'user:shared', limit }];
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? one : two).admit(check)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    for (const limiter of [one, two]) {
      const refused = await limiter.admit(check);
      expect(refused).toMatchObject({ allowed: false, refusedBy: { policy: 'caller', remaining: 0 } });
      if (!refused.allowed) expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    // Another caller's bucket is its own.
    expect((await two.admit([{ policy: 'caller', id: 'user:other', limit }])).allowed).toBe(true);
  });

  it('claims ahead under a high rate yet the two gateways stay within the shared bucket', async () => {
    // 6000 a minute with a burst of 400: leases of up to 10 units.
    const limit: RateLimit = { quota: 6_000, windowSeconds: 60, burst: 400 };
    const [one, two] = [gateway(), gateway()];
    const check = [{ policy: 'workspace', id: 'ws', limit }];
    const started = Date.now();
    let admitted = 0;
    for (let round = 0; round < 60; round++) {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).admit(check)));
      admitted += results.filter((r) => r.allowed).length;
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    // Never more than the burst plus what refilled meanwhile (100/s) and one lease period, plus
    // one request for each take the store failed (the limiter fails open); those stay rare.
    expect(storeErrors).toBeLessThanOrEqual(12);
    expect(admitted).toBeLessThanOrEqual(400 + Math.ceil(100 * (elapsedSeconds + 0.1)) + storeErrors);
    expect(admitted).toBeGreaterThanOrEqual(400);
  });
});
