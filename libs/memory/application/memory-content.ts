import { seal, unseal, type Keyring } from '@lore/platform/crypto';
import { AppError } from '@lore/platform/kernel';

/** The sealed part of a memory: everything the user wrote. */
export interface MemoryContent {
  readonly memory: string;
  readonly topics: string[];
  readonly metadata: Record<string, unknown>;
}

/**
 * Seals and opens memory content with the memory's own data key. A sealed value is
 * `<key id>:<AES-GCM text>`, bound to the memory id as associated data, so the events and
 * read models say which key to shred and a ciphertext cannot be moved to another memory.
 */
export class MemoryCipher {
  constructor(private readonly keyring: Keyring) {}

  /** A new memory's key: every memory has its own. */
  async newKey(): Promise<{ keyId: string; key: Buffer }> {
    return this.keyring.create();
  }

  seal(memoryId: string, content: MemoryContent, dataKey: { keyId: string; key: Buffer }): string {
    return `${dataKey.keyId}:${seal(dataKey.key, JSON.stringify(content), memoryId)}`;
  }

  /** The key a sealed value was made with, to seal its next version alike. */
  async keyOf(sealed: string): Promise<{ keyId: string; key: Buffer }> {
    const keyId = MemoryCipher.keyIdOf(sealed);
    const key = await this.keyring.get(keyId);
    // A memory whose key is gone was deleted: to the caller it does not exist.
    if (key === null) throw new AppError('not_found', 'Memory not found');
    return { keyId, key };
  }

  async open(memoryId: string, sealed: string): Promise<MemoryContent> {
    const { key } = await this.keyOf(sealed);
    return JSON.parse(unseal(key, sealed.slice(sealed.indexOf(':') + 1), memoryId).toString('utf8')) as MemoryContent;
  }

  async shred(sealedValues: readonly string[]): Promise<void> {
    const keyIds = [...new Set(sealedValues.map((s) => MemoryCipher.keyIdOf(s)))];
    if (keyIds.length > 0) await this.keyring.shred(keyIds);
  }

  static keyIdOf(sealed: string): string {
    const colon = sealed.indexOf(':');
    if (colon <= 0) throw new Error('sealed memory content without a key id');
    return sealed.slice(0, colon);
  }
}
