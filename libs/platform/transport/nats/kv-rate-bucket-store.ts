import { connect, NatsError, StorageType, type KV, type NatsConnection } from 'nats';
import { gcraTake, type BucketTake, type RateBucketStore, type RateLimit } from '@lore/platform/kernel';
import { natsConnectionOptions } from './connection-options';

export interface KvRateBucketStoreOptions {
  readonly url: string;
  /** The bucket is `<subjectPrefix>_RATE_LIMITS`, so deployments sharing a NATS keep their own. */
  readonly subjectPrefix: string;
  readonly name?: string;
}

/** JetStream's "wrong last sequence": another process wrote the key since it was read. */
const WRONG_LAST_SEQUENCE = 10071;
/** Compare-and-set attempts before giving up (the limiter then admits: it fails open). */
const ATTEMPTS = 16;
/**
 * Keys untouched this long are removed by the server. A bucket is full again at the latest
 * burst/rate after its last take; an hour covers any sane policy, and a removed key is a full
 * bucket anyway.
 */
const KEY_TTL_MS = 3_600_000;

export const rateLimitBucketName = (subjectPrefix: string): string => `${subjectPrefix}_RATE_LIMITS`;

/**
 * Rate-limit buckets shared by every gateway process: one JetStream key-value entry per bucket
 * holding its GCRA state (the theoretical arrival time, in ms), read and written back with
 * compare-and-set on the entry's revision, so concurrent takes from several processes never
 * both spend the same units. In memory on the server: losing it on a NATS restart only refills
 * the buckets. Connects on first use.
 */
export function kvRateBucketStore(options: KvRateBucketStoreOptions): RateBucketStore {
  let connection: Promise<NatsConnection> | undefined;
  let bucket: Promise<KV> | undefined;
  const nats = (): Promise<NatsConnection> =>
    (connection ??= connect(natsConnectionOptions(options.url, options.name)));
  const kv = (): Promise<KV> => {
    bucket ??= nats()
      .then((nc) => nc.jetstream().views.kv(rateLimitBucketName(options.subjectPrefix), { history: 1, ttl: KEY_TTL_MS, storage: StorageType.Memory }))
      // A failed creation (NATS not reachable yet) is tried again by the next take.
      .catch((error: unknown) => {
        bucket = undefined;
        throw error;
      });
    return bucket;
  };
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  return {
    async take(key: string, limit: RateLimit, wanted: number): Promise<BucketTake> {
      const store = await kv();
      for (let attempt = 1; ; attempt++) {
        const entry = await store.get(key);
        const stored = entry !== null && entry.operation === 'PUT' ? Number(decoder.decode(entry.value)) : null;
        const { tat, take } = gcraTake(stored !== null && Number.isFinite(stored) ? stored : null, Date.now(), limit, wanted);
        if (take.granted === 0) return take;
        const value = encoder.encode(String(Math.ceil(tat)));
        try {
          if (entry === null) await store.create(key, value);
          else await store.update(key, value, entry.revision);
          return take;
        } catch (error) {
          const lost = error instanceof NatsError && (error.api_error?.err_code === WRONG_LAST_SEQUENCE || /wrong last sequence|key exists/i.test(error.message));
          if (!lost || attempt >= ATTEMPTS) throw error;
        }
      }
    },

    async close(): Promise<void> {
      if (connection === undefined) return;
      const nc = await connection.catch(() => undefined);
      await nc?.close();
    },
  };
}
