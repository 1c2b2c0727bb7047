import { createHmac } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { newId, randomPoolBytes } from '@lore/platform/kernel';
import type { DocumentCollection, DocumentStore, Filter } from '@lore/platform/documents/port';
import { seal, unseal } from './aead';

/** A data key, stored wrapped by the master key of `master_version` (absent: version 1, before versions were recorded). */
export interface WrappedKeyDoc {
  readonly id: string;
  readonly wrapped: string;
  readonly master_version?: number;
  readonly [field: string]: unknown;
}

/** Written by the rotation tool before it re-wraps a keyring's data keys, cleared once it has. */
export interface KeyringRotation {
  readonly from: number;
  readonly to: number;
  /** The check text sealed by the new key: a resumed rotation proves it holds the same new key. */
  readonly wrapped: string;
  readonly verifier_keys: Readonly<Record<string, string>>;
}

/** The keyring's record of its master key: the check text sealed by it, and its version. */
export interface KeyringCheckDoc extends WrappedKeyDoc {
  /** Present once the keyring was rotated: the verifier keys, sealed by the current master key. */
  readonly verifier_keys?: Readonly<Record<string, string>>;
  readonly rotation?: KeyringRotation;
}

export const KEYRING_COLLECTION = 'data_keys';
export const KEY_CHECK_ID = '__master_key_check__';
const KEY_CHECK_TEXT = 'lore master key check';
const CACHE_LIMIT = 10_000;
const POOL_BATCH = 256;
const POOL_LOW_WATER = 64;
/**
 * Keys deleted a transaction by `shred`, with a turn of the event loop between: a conversation's
 * 20,000 keys in one transaction held every other workspace's requests ~160 ms (probe).
 */
export const SHRED_PAGE = 500;
export const ROTATE_COMMAND = 'npm run keys:rotate-master';

/**
 * Every purpose `verifier` serves. Verifiers are stored (API key secrets in the event log), so
 * they must survive a master key rotation: the rotation carries each purpose's key over, sealed
 * by the new master key, and can only do so for purposes listed here.
 */
export const VERIFIER_PURPOSES = ['api-key-secret'] as const;
export type VerifierPurpose = (typeof VERIFIER_PURPOSES)[number];

export function masterVersionOf(doc: { readonly master_version?: number }): number {
  return doc.master_version ?? 1;
}

export function sealKeyCheck(master: Buffer): string {
  return seal(master, KEY_CHECK_TEXT, KEY_CHECK_ID);
}

export function opensKeyCheck(master: Buffer, wrapped: string): boolean {
  try {
    return unseal(master, wrapped, KEY_CHECK_ID).toString('utf8') === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
}

/** Data keys are bound to their id (associated data): a wrapped key copied under another id does not open. */
export function wrapDataKey(master: Buffer, keyId: string, key: Buffer): string {
  return seal(master, key, keyId);
}

export function unwrapDataKey(master: Buffer, keyId: string, wrapped: string): Buffer {
  return unseal(master, wrapped, keyId);
}

/** The data key docs not wrapped at `version` (version 1 docs may lack the field). */
export function notAtVersion(version: number): Filter {
  // Ranges rather than $ne, so that the master_version index serves them.
  const other: Filter[] = [{ master_version: { $lt: version } }, { master_version: { $gt: version } }];
  return { $or: version === 1 ? other : [...other, { master_version: { $exists: false } }] };
}

/**
 * The keyed-hash keys of a keyring whose check doc is `check`, opened by `master`. Until the
 * first rotation they derive from the master key itself (as they always did); afterwards the
 * check doc carries the original ones, so stored verifiers keep matching.
 */
export function verifierKeys(master: Buffer, check: KeyringCheckDoc): Map<VerifierPurpose, Buffer> {
  return new Map(
    VERIFIER_PURPOSES.map((purpose) => {
      const sealed = check.verifier_keys?.[purpose];
      const key = sealed === undefined ? createHmac('sha256', master).update(`lore/${purpose}`).digest() : unseal(master, sealed, verifierAad(purpose));
      return [purpose, key] as const;
    }),
  );
}

export function sealVerifierKeys(master: Buffer, keys: ReadonlyMap<VerifierPurpose, Buffer>): Record<string, string> {
  return Object.fromEntries([...keys].map(([purpose, key]) => [purpose, seal(master, key, verifierAad(purpose))]));
}

function verifierAad(purpose: string): string {
  return `${KEY_CHECK_ID}/verifier/${purpose}`;
}

/**
 * Per-aggregate data keys for crypto-shredding (ARCHITECTURE §3.7). Each aggregate's
 * sensitive fields are sealed with its own random key; the key is stored wrapped by the
 * master key. Shredding deletes the wrapped key, after which the ciphertext, wherever it
 * still lies (event log, backups), can never be read again. The master key is versioned so
 * that `npm run keys:rotate-master` can re-wrap every data key under a new one.
 */
export class Keyring {
  private readonly cache = new Map<string, Buffer>();
  private readonly keys: DocumentCollection<WrappedKeyDoc>;
  /** Reads of wrapped keys under way in {@link get}. */
  private loading = 0;
  /**
   * Ids whose shred ended while a read was under way: that read may have found the key before
   * the deletion, and must neither hand it out nor cache it (a shredded key back in the cache
   * would open erased data, e.g. in a rebuild). Cleared when no read is left.
   */
  private readonly shreddedWhileLoading = new Set<string>();
  /** Ids whose deletion is being written: a read may still find them (a store that awaits its writes). */
  private readonly shredding = new Map<string, number>();

  private constructor(
    private readonly documents: DocumentStore,
    private readonly collection: string,
    private readonly master: Buffer,
    private readonly version: number,
    private readonly verifiers: ReadonlyMap<VerifierPurpose, Buffer>,
  ) {
    this.keys = documents.collection<WrappedKeyDoc>(collection);
  }

  /**
   * Opens the keyring and proves the master key is the one that wrapped its keys, and that no
   * rotation is half done: a keyring with data keys under two master keys is not started on.
   */
  static async open(documents: DocumentStore, master: Buffer, collection = KEYRING_COLLECTION): Promise<Keyring> {
    const keys = documents.collection<KeyringCheckDoc>(collection);
    let check = await keys.get(KEY_CHECK_ID);
    if (check === null) {
      check = { id: KEY_CHECK_ID, wrapped: sealKeyCheck(master), master_version: 1 };
      await keys.upsert(check);
    }
    const version = masterVersionOf(check);
    if (check.rotation !== undefined) {
      throw new Error(
        `A master key rotation (version ${check.rotation.from} to ${check.rotation.to}) was interrupted: some data keys are wrapped by the old ` +
          `master key, some by the new one. Re-run \`${ROTATE_COMMAND}\` with the same old and new keys to complete it; refusing to start until then.`,
      );
    }
    if (!opensKeyCheck(master, check.wrapped)) {
      throw new Error(
        `The master key does not match the one that encrypted the stored data keys: they are wrapped by master key version ${version}. ` +
          'Start with that key (LORE_MASTER_KEY, or DATA_DIR/master.key; after a rotation, the new one); ' +
          'refusing to start rather than return unreadable data.',
      );
    }
    // Data keys under another version mean a rotation did not reach them. Indexed, so the look
    // costs nothing at start however many keys there are (the index is built on the first start).
    await keys.ensureIndex(['master_version']);
    // count, not find: find's order by id would have SQLite walk the table rather than the index.
    const stray = await keys.count(notAtVersion(version));
    if (stray > 0) {
      throw new Error(
        `${stray} data keys are wrapped by another master key version than the current one (${version}): ` +
          `a rotation did not finish (or a service kept running with the old key during it). Re-run \`${ROTATE_COMMAND}\` with the same ` +
          'old and new keys to complete it; refusing to start until then.',
      );
    }
    return new Keyring(documents, collection, master, version, verifierKeys(master, check));
  }

  /**
   * Hands out a fresh data key for one aggregate. Keys are generated ahead in batches and
   * written durably before any is handed out, so sealing never waits for a key write and
   * no event is ever sealed with a key that could be lost. The caller records the key id
   * with what it seals (see MemoryCipher); an unused pooled key encrypts nothing.
   */
  async create(): Promise<{ keyId: string; key: Buffer }> {
    for (;;) {
      if (this.pool.length === 0) await this.refill();
      const next = this.takePooled();
      if (next !== undefined) return next;
    }
  }

  /**
   * {@link create} without waiting: a key from the pool (already durable), or undefined when
   * the pool is empty (then `create` waits for the refill). A write path calls this first, so
   * the usual case costs no promise.
   */
  takePooled(): { keyId: string; key: Buffer } | undefined {
    const next = this.pool.pop();
    if (next === undefined) return undefined;
    if (this.pool.length < POOL_LOW_WATER) void this.refill().catch(() => undefined);
    this.remember(next.keyId, next.key);
    return next;
  }

  /**
   * Gives back a key taken from the pool that sealed nothing stored (a write that turned out to
   * repeat one already made, and appended nothing): it is as durable and as unused as before, so
   * the next write takes it. Shredding it instead cost a durable deletion and a WAL purge on
   * every client retry, on the event loop's thread.
   */
  putBack(key: { keyId: string; key: Buffer }): void {
    this.pool.push(key);
  }

  private pool: Array<{ keyId: string; key: Buffer }> = [];
  private refilling: Promise<void> | null = null;

  /** One durable write for a whole batch of keys; concurrent callers share it. */
  private refill(): Promise<void> {
    this.refilling ??= (async () => {
      try {
        const fresh = Array.from({ length: POOL_BATCH }, () => ({ keyId: newId('dk'), key: randomPoolBytes(32) }));
        await this.documents.write(
          fresh.map(({ keyId, key }) => ({
            collection: this.collection,
            op: 'upsert' as const,
            doc: { id: keyId, wrapped: wrapDataKey(this.master, keyId, key), master_version: this.version },
          })),
        );
        this.pool.push(...fresh);
      } finally {
        this.refilling = null;
      }
    })();
    return this.refilling;
  }

  /** A data key this process holds unwrapped already; undefined: ask {@link get}. */
  cached(keyId: string): Buffer | undefined {
    return this.cache.get(keyId);
  }

  /** A data key by id, or null once shredded. */
  async get(keyId: string): Promise<Buffer | null> {
    const cached = this.cache.get(keyId);
    if (cached) return cached;
    this.loading++;
    let doc: WrappedKeyDoc | null;
    let shredMeanwhile: boolean;
    try {
      doc = await this.keys.get(keyId);
    } finally {
      shredMeanwhile = this.shreddedWhileLoading.has(keyId) || this.shredding.has(keyId);
      if (--this.loading === 0) this.shreddedWhileLoading.clear();
    }
    if (doc === null || shredMeanwhile) return null;
    const key = unwrapDataKey(this.master, keyId, doc.wrapped);
    this.remember(keyId, key);
    return key;
  }

  async shred(keyIds: readonly string[]): Promise<void> {
    for (const id of keyIds) {
      this.cache.delete(id);
      this.shredding.set(id, (this.shredding.get(id) ?? 0) + 1);
    }
    try {
      for (let from = 0; from < keyIds.length; from += SHRED_PAGE) {
        if (from > 0) await nextTurn();
        await this.documents.write(keyIds.slice(from, from + SHRED_PAGE).map((id) => ({ collection: this.collection, op: 'delete' as const, id })));
      }
      await this.documents.purgeDeleted();
    } finally {
      for (const id of keyIds) {
        // A read still under way may have found the key before the deletion; one that ended
        // before this point saw the id in `shredding`.
        if (this.loading > 0) this.shreddedWhileLoading.add(id);
        const left = (this.shredding.get(id) ?? 1) - 1;
        if (left === 0) this.shredding.delete(id);
        else this.shredding.set(id, left);
      }
    }
  }

  /**
   * A keyed hash (HMAC-SHA256) for verifiers such as API key secrets, under a key derived from
   * the master key the keyring was created with, which a rotation carries over (VERIFIER_PURPOSES).
   */
  verifier(purpose: VerifierPurpose, value: string): string {
    const key = this.verifiers.get(purpose);
    if (key === undefined) throw new Error(`no verifier key for ${purpose}`);
    return createHmac('sha256', key).update(value).digest('hex');
  }

  private remember(id: string, key: Buffer): void {
    if (this.cache.size >= CACHE_LIMIT) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(id, key);
  }
}
