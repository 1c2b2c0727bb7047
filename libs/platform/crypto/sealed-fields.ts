import { notFound } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { seal, unseal } from './aead';
import type { Keyring } from './keyring';

export interface DataKey {
  readonly keyId: string;
  readonly key: Buffer;
}

/**
 * Sensitive fields of an aggregate, sealed with the aggregate's own data key (ARCHITECTURE
 * §3.7). A sealed value is `<key id>:<AES-GCM text>`, bound to the aggregate id as
 * associated data, so events and read models say which key to shred and a ciphertext
 * cannot be moved to another aggregate. `what` names the aggregate in errors: once its
 * key is shredded, the aggregate does not exist for anyone.
 */
export class SealedFields<T> {
  constructor(
    private readonly keyring: Keyring,
    private readonly what: string,
  ) {}

  /** A new aggregate's key: every aggregate has its own. */
  async newKey(): Promise<DataKey> {
    return this.keyring.create();
  }

  /** {@link newKey} without waiting when the keyring has one ready (see `Keyring.takePooled`); undefined otherwise. */
  pooledKey(): DataKey | undefined {
    return this.keyring.takePooled();
  }

  seal(aggregateId: string, value: T, dataKey: DataKey): string {
    return `${dataKey.keyId}:${seal(dataKey.key, JSON.stringify(value), aggregateId)}`;
  }

  /** The key a sealed value was made with, to seal the aggregate's next version alike. */
  async keyOf(sealed: string): Promise<DataKey> {
    const keyId = sealedKeyId(sealed);
    const key = await this.keyring.get(keyId);
    if (key === null) throw notFound(this.what);
    return { keyId, key };
  }

  /** The value; a key the keyring holds unwrapped opens it without waiting (one promise, on the write path's projections). */
  open(aggregateId: string, sealed: string): Promise<T> {
    try {
      const key = this.keyring.cached(sealedKeyId(sealed));
      if (key !== undefined) return Promise.resolve(openWith<T>(key, aggregateId, sealed));
    } catch (error) {
      return Promise.reject(error);
    }
    return this.keyOf(sealed).then(({ key }) => openWith<T>(key, aggregateId, sealed));
  }
}

function openWith<T>(key: Buffer, aggregateId: string, sealed: string): T {
  return JSON.parse(unseal(key, sealed.slice(sealed.indexOf(':') + 1), aggregateId).toString('utf8')) as T;
}

export function sealedKeyId(sealed: string): string {
  const colon = sealed.indexOf(':');
  if (colon <= 0) throw new Error('sealed value without a key id');
  return sealed.slice(0, colon);
}

/**
 * Permanent deletion, in the order that keeps it resumable: shred the data keys (the
 * ciphertext becomes noise wherever it still lies), delete the streams, then make the
 * engines forget the deleted bytes (SQLite secure_delete and WAL truncation). Every step
 * is idempotent, so a crash anywhere is repaired by running it again. Callers run it only
 * after the read models have dropped the aggregates.
 */
export async function eraseAggregates(
  stores: { readonly keyring: Keyring; readonly events: EventStore; readonly documents: DocumentStore },
  erasure: { readonly keyIds: readonly string[]; readonly streamIds: readonly string[] },
): Promise<void> {
  if (erasure.keyIds.length > 0) await stores.keyring.shred([...new Set(erasure.keyIds)]);
  for (const streamId of erasure.streamIds) await stores.events.deleteStream(streamId);
  await stores.documents.purgeDeleted();
}
