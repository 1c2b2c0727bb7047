import { createHmac, randomBytes } from 'node:crypto';
import { newId } from '@lore/platform/kernel';
import type { DocumentCollection, DocumentStore } from '@lore/platform/documents/port';
import { seal, unseal } from './aead';

interface WrappedKeyDoc {
  readonly id: string;
  readonly wrapped: string;
  readonly [field: string]: unknown;
}

const KEY_CHECK_ID = '__master_key_check__';
const KEY_CHECK_TEXT = 'lore master key check';
const CACHE_LIMIT = 10_000;
const POOL_BATCH = 256;
const POOL_LOW_WATER = 64;

/**
 * Per-aggregate data keys for crypto-shredding (ARCHITECTURE §3.7). Each aggregate's
 * sensitive fields are sealed with its own random key; the key is stored wrapped by the
 * master key. Shredding deletes the wrapped key, after which the ciphertext, wherever it
 * still lies (event log, backups), can never be read again.
 */
export class Keyring {
  private readonly cache = new Map<string, Buffer>();

  private constructor(
    private readonly documents: DocumentStore,
    private readonly collection: string,
    private readonly master: Buffer,
  ) {
    this.keys = documents.collection<WrappedKeyDoc>(collection);
  }

  private readonly keys: DocumentCollection<WrappedKeyDoc>;

  /** Opens the keyring and proves the master key is the one that wrapped its keys. */
  static async open(documents: DocumentStore, master: Buffer, collection = 'data_keys'): Promise<Keyring> {
    const keys = documents.collection<WrappedKeyDoc>(collection);
    const check = await keys.get(KEY_CHECK_ID);
    if (check === null) {
      await keys.upsert({ id: KEY_CHECK_ID, wrapped: seal(master, KEY_CHECK_TEXT, KEY_CHECK_ID) });
    } else {
      let ok = false;
      try {
        ok = unseal(master, check.wrapped, KEY_CHECK_ID).toString('utf8') === KEY_CHECK_TEXT;
      } catch {
        ok = false;
      }
      if (!ok) {
        throw new Error(
          'The master key does not match the one that encrypted the stored data keys. Start with the original ' +
            'LORE_MASTER_KEY (or the original DATA_DIR/master.key); refusing to start rather than return unreadable data.',
        );
      }
    }
    return new Keyring(documents, collection, master);
  }

  /**
   * Hands out a fresh data key for one aggregate. Keys are generated ahead in batches and
   * written durably before any is handed out, so sealing never waits for a key write and
   * no event is ever sealed with a key that could be lost. The caller records the key id
   * with what it seals (see MemoryCipher); an unused pooled key encrypts nothing.
   */
  async create(): Promise<{ keyId: string; key: Buffer }> {
    if (this.pool.length === 0) await this.refill();
    const next = this.pool.pop();
    if (next === undefined) return this.create();
    if (this.pool.length < POOL_LOW_WATER) void this.refill().catch(() => undefined);
    this.remember(next.keyId, next.key);
    return next;
  }

  private pool: Array<{ keyId: string; key: Buffer }> = [];
  private refilling: Promise<void> | null = null;

  /** One durable write for a whole batch of keys; concurrent callers share it. */
  private refill(): Promise<void> {
    this.refilling ??= (async () => {
      try {
        const fresh = Array.from({ length: POOL_BATCH }, () => ({ keyId: newId('dk'), key: randomBytes(32) }));
        await this.documents.write(
          fresh.map(({ keyId, key }) => ({ collection: this.collection, op: 'upsert' as const, doc: { id: keyId, wrapped: seal(this.master, key, keyId) } })),
        );
        this.pool.push(...fresh);
      } finally {
        this.refilling = null;
      }
    })();
    return this.refilling;
  }

  /** A data key by id, or null once shredded. */
  async get(keyId: string): Promise<Buffer | null> {
    const cached = this.cache.get(keyId);
    if (cached) return cached;
    const doc = await this.keys.get(keyId);
    if (doc === null) return null;
    const key = unseal(this.master, doc.wrapped, keyId);
    this.remember(keyId, key);
    return key;
  }

  async shred(keyIds: readonly string[]): Promise<void> {
    for (const id of keyIds) this.cache.delete(id);
    await this.documents.write(keyIds.map((id) => ({ collection: this.collection, op: 'delete' as const, id })));
    await this.documents.purgeDeleted();
  }

  /** A keyed hash (HMAC-SHA256 under a key derived from the master key) for verifiers such as API key secrets. */
  verifier(purpose: string, value: string): string {
    const derived = createHmac('sha256', this.master).update(`lore/${purpose}`).digest();
    return createHmac('sha256', derived).update(value).digest('hex');
  }

  private remember(id: string, key: Buffer): void {
    if (this.cache.size >= CACHE_LIMIT) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(id, key);
  }
}
