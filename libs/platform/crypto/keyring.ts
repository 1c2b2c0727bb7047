import { createHmac, randomBytes } from 'node:crypto';
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
   * Creates the aggregate's data key; durable before it returns, so no event is sealed
   * with a key that could be lost. Keys created in the same event-loop turn are written
   * in one transaction (one fsync for many concurrent creates).
   */
  async create(aggregateId: string): Promise<Buffer> {
    const key = randomBytes(32);
    await this.persist({ id: aggregateId, wrapped: seal(this.master, key, aggregateId) });
    this.remember(aggregateId, key);
    return key;
  }

  private pending: Array<{ readonly doc: WrappedKeyDoc; readonly resolve: () => void; readonly reject: (error: unknown) => void }> = [];

  private persist(doc: WrappedKeyDoc): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ doc, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      await this.documents.write(batch.map((entry) => ({ collection: this.collection, op: 'upsert' as const, doc: entry.doc })));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  /** The aggregate's data key, or null once shredded. */
  async get(aggregateId: string): Promise<Buffer | null> {
    const cached = this.cache.get(aggregateId);
    if (cached) return cached;
    const doc = await this.keys.get(aggregateId);
    if (doc === null) return null;
    const key = unseal(this.master, doc.wrapped, aggregateId);
    this.remember(aggregateId, key);
    return key;
  }

  async shred(aggregateIds: readonly string[]): Promise<void> {
    for (const id of aggregateIds) this.cache.delete(id);
    await this.documents.write(aggregateIds.map((id) => ({ collection: this.collection, op: 'delete' as const, id })));
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
